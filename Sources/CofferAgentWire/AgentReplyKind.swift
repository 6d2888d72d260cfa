/// The kind byte of each reply (docs/agent.md, section 4).
package enum AgentReplyKind: UInt8, Sendable {
    case ok = 0x80, error = 0x81, notHeld = 0x82, tokenFailure = 0x83
}

/// The tag byte of each reply field (docs/agent.md, section 4).
package enum AgentReplyTag: UInt8, Sendable {
    case record = 0x03, code = 0x20, text = 0x21, path = 0x22, secret = 0x23, count = 0x24, agent = 0x25, heldVault = 0x26, holdFailure = 0x27
    case secretService = 0x28, accessToken = 0x29, tokenTerms = 0x2A, scope = 0x2B, apiOrigin = 0x2C, next = 0x2D, exitStatus = 0x2E
}
