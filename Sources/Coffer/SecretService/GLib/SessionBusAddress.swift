import FoundationEssentials
import Glibc

/// Where the session bus is, found without side effects: `DBUS_SESSION_BUS_ADDRESS`, else the
/// socket `$XDG_RUNTIME_DIR/bus` when it is this user's (as GLib finds it). GDBus would then
/// try `dbus-launch --autolaunch`; Coffer never does, neither as a client of the Secret Service
/// nor as its provider.
package enum SessionBusAddress {
    /// Why there is no address, for errors and status reports.
    package static let missing = "DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus"

    /// The address, or `nil` when there is none.
    package static func find(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            var info = stat()
            // As GLib: a socket there that is not this user's comes from someone else's runtime folder.
            if stat(runtime + "/bus", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == geteuid() {
                return "unix:path=" + runtime + "/bus"
            }
        }
        return nil
    }
}
