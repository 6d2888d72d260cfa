import Foundation

/// ``DispatchServer``'s `sdbus` mode: `Echo` answered with sd-bus (libsystemd, `dlopen`ed: the
/// package does not link it), on one thread that reads, answers and writes.
enum SDBusEcho {
    private typealias Handler = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32

    private struct API {
        let new: @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32
        let setAddress: @convention(c) (OpaquePointer, UnsafePointer<CChar>) -> Int32
        let setBusClient: @convention(c) (OpaquePointer, Int32) -> Int32
        let start: @convention(c) (OpaquePointer) -> Int32
        let uniqueName: @convention(c) (OpaquePointer, UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Int32
        let addObject: @convention(c) (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>, Handler, UnsafeMutableRawPointer?) -> Int32
        let member: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
        let readBasic: @convention(c) (OpaquePointer, CChar, UnsafeMutableRawPointer) -> Int32
        let newReturn: @convention(c) (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32
        let appendBasic: @convention(c) (OpaquePointer, CChar, UnsafeRawPointer) -> Int32
        let send: @convention(c) (OpaquePointer?, OpaquePointer, UnsafeMutablePointer<UInt64>?) -> Int32
        let unref: @convention(c) (OpaquePointer) -> OpaquePointer?
        let process: @convention(c) (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
        let wait: @convention(c) (OpaquePointer, UInt64) -> Int32

        init?() {
            guard let library = dlopen("libsystemd.so.0", RTLD_NOW) else { return nil }
            func symbol<T>(_ name: String) -> T? { dlsym(library, name).map { unsafeBitCast($0, to: T.self) } }
            guard let new: @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32 = symbol("sd_bus_new"),
                  let setAddress: @convention(c) (OpaquePointer, UnsafePointer<CChar>) -> Int32 = symbol("sd_bus_set_address"),
                  let setBusClient: @convention(c) (OpaquePointer, Int32) -> Int32 = symbol("sd_bus_set_bus_client"),
                  let start: @convention(c) (OpaquePointer) -> Int32 = symbol("sd_bus_start"),
                  let uniqueName: @convention(c) (OpaquePointer, UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Int32 = symbol("sd_bus_get_unique_name"),
                  let addObject: @convention(c) (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>, Handler, UnsafeMutableRawPointer?) -> Int32 = symbol("sd_bus_add_object"),
                  let member: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>? = symbol("sd_bus_message_get_member"),
                  let readBasic: @convention(c) (OpaquePointer, CChar, UnsafeMutableRawPointer) -> Int32 = symbol("sd_bus_message_read_basic"),
                  let newReturn: @convention(c) (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32 = symbol("sd_bus_message_new_method_return"),
                  let appendBasic: @convention(c) (OpaquePointer, CChar, UnsafeRawPointer) -> Int32 = symbol("sd_bus_message_append_basic"),
                  let send: @convention(c) (OpaquePointer?, OpaquePointer, UnsafeMutablePointer<UInt64>?) -> Int32 = symbol("sd_bus_send"),
                  let unref: @convention(c) (OpaquePointer) -> OpaquePointer? = symbol("sd_bus_message_unref"),
                  let process: @convention(c) (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>?) -> Int32 = symbol("sd_bus_process"),
                  let wait: @convention(c) (OpaquePointer, UInt64) -> Int32 = symbol("sd_bus_wait")
            else { return nil }
            (self.new, self.setAddress, self.setBusClient, self.start, self.uniqueName, self.addObject) = (new, setAddress, setBusClient, start, uniqueName, addObject)
            (self.member, self.readBasic, self.newReturn, self.appendBasic, self.send, self.unref, self.process, self.wait) =
                (member, readBasic, newReturn, appendBasic, send, unref, process, wait)
        }
    }

    // Set once before the serving thread starts; read by the handler on that thread only.
    nonisolated(unsafe) private static var api: API?

    static func serve(address: String) {
        guard let api = API() else { return print("error: no libsystemd") }
        self.api = api
        var created: OpaquePointer?
        guard api.new(&created) >= 0, let bus = created, api.setAddress(bus, address) >= 0, api.setBusClient(bus, 1) >= 0,
              api.start(bus) >= 0
        else { return print("error: sd-bus did not connect") }
        let handler: Handler = { message, _, _ in
            guard let message, let api = SDBusEcho.api, let member = api.member(message), strcmp(member, "Echo") == 0 else { return 0 }
            var text: UnsafePointer<CChar>?
            guard api.readBasic(message, CChar(UInt8(ascii: "s")), &text) >= 0, let text else { return -EINVAL }
            var reply: OpaquePointer?
            guard api.newReturn(message, &reply) >= 0, let reply else { return -ENOMEM }
            defer { _ = api.unref(reply) }
            guard api.appendBasic(reply, CChar(UInt8(ascii: "s")), text) >= 0 else { return -ENOMEM }
            return api.send(nil, reply, nil) >= 0 ? 1 : -EIO
        }
        guard api.addObject(bus, nil, DispatchServer.path, handler, nil) >= 0 else { return print("error: sd_bus_add_object") }
        var unique: UnsafePointer<CChar>?
        _ = api.uniqueName(bus, &unique)
        DispatchServer.announce(unique.map { String(cString: $0) } ?? "")
        let shared = DispatchServer.SharedConnection(pointer: bus)
        let thread = Thread {
            let bus = shared.pointer
            while true {
                let processed = api.process(bus, nil)
                if processed < 0 { return }
                if processed == 0 { _ = api.wait(bus, UInt64.max) }
            }
        }
        thread.start()
        while readLine() != nil {}
    }
}
