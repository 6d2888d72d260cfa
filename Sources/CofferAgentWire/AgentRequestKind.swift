/// The kind byte of each request (docs/agent.md, section 3).
package enum AgentRequestKind: UInt8, Sendable {
    case ping = 0x01, status = 0x02, unlock = 0x03, lock = 0x04, stop = 0x05, holds = 0x06, identify = 0x07
    case share = 0x08, unshare = 0x09
    case set = 0x10, item = 0x11, secret = 0x12, remove = 0x13, items = 0x14, removeAll = 0x15
    case token = 0x16, keepLogin = 0x17, endLogin = 0x18
    case helperGet = 0x19, listing = 0x1A
}

/// The tag byte of each request field (docs/agent.md, section 3).
package enum AgentRequestTag: UInt8, Sendable {
    case vault = 0x01, id = 0x02, record = 0x03, queryClass = 0x04, queryService = 0x05, queryAccount = 0x06
    case queryAttribute = 0x07, credentialKind = 0x08, credential = 0x09, lifetime = 0x0A, all = 0x0B
    case socket = 0x0C, program = 0x0D, readWrite = 0x0E, profile = 0x0F, refused = 0x10, login = 0x11
    case helper = 0x12, helperInput = 0x13, secret = 0x14, after = 0x15
}
