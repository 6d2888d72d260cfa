import Foundation
import Glibc

/// Which session bus addresses the provider serves on: only the user's own bus, reached without
/// starting any program (D-Bus specification, "Server Addresses"). Checked before connecting;
/// once connected, ``BusConnection`` also checks that the bus daemon runs as this user.
///
/// An address is a list of entries separated by `;`, tried in order, so every entry must pass:
/// - `unix:path=P`: `P` must be a socket owned by this user, the check GLib makes of
///   `$XDG_RUNTIME_DIR/bus` (`stat`, following links as `connect` does: owner and type);
/// - `unix:abstract=N`: an abstract socket has no owner to check beforehand; it is accepted,
///   and the daemon's user is checked once connected;
/// - `unix:dir=`, `unix:tmpdir=`, `unix:runtime=`: addresses a server listens on, not one a
///   client connects to;
/// - `autolaunch:`, `unixexec:`, `launchd:`, `systemd:`: they start a program or ask another
///   service where the bus is;
/// - `tcp:`, `nonce-tcp:`: every local user can reach them, and they have no owner to check.
enum OwnBusAddress {
    /// Why the provider does not serve on `address`, or `nil` when every entry passes.
    static func refusal(of address: String) -> String? {
        let entries = address.split(separator: ";", omittingEmptySubsequences: true).map(String.init)
        guard !entries.isEmpty else { return "the session bus address is empty" }
        for entry in entries {
            if let refusal = refusal(ofEntry: entry) { return refusal }
        }
        return nil
    }

    private static func refusal(ofEntry entry: String) -> String? {
        guard let colon = entry.firstIndex(of: ":") else { return "the session bus address \(entry.debugDescription) is not a D-Bus address" }
        let transport = String(entry[..<colon])
        switch transport {
        case "unix":
            guard let keys = keyValues(String(entry[entry.index(after: colon)...])) else {
                return "the session bus address \(entry.debugDescription) is not a D-Bus address"
            }
            if let path = keys["path"] { return socketRefusal(path) }
            if keys["abstract"] != nil { return nil }
            return "the session bus address \(entry.debugDescription) is one a bus listens on, not one to connect to"
        case "autolaunch", "unixexec", "launchd", "systemd":
            return "the session bus address \(entry.debugDescription) starts a program or asks another service where the bus is; "
                + "the Secret Service runs only on the user's own bus (unix:path= or unix:abstract=)"
        case "tcp", "nonce-tcp":
            return "the session bus address \(entry.debugDescription) is a TCP bus, which every local user can reach; "
                + "the Secret Service runs only on the user's own bus (unix:path= or unix:abstract=)"
        default:
            return "the session bus address \(entry.debugDescription) has a transport the Secret Service does not use"
        }
    }

    /// Why the socket at `path` is not this user's, as GLib checks `$XDG_RUNTIME_DIR/bus`.
    private static func socketRefusal(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot reach the session bus socket \(path): \(String(cString: strerror(errno)))" }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return "the session bus address names \(path), which is not a socket" }
        guard info.st_uid == geteuid() else {
            return "the session bus socket \(path) belongs to uid \(info.st_uid), not to this user (uid \(geteuid())); "
                + "the Secret Service runs only on the user's own bus"
        }
        return nil
    }

    /// The `key=value` pairs of an entry, values unescaped (`%` and two hex digits); `nil` when
    /// malformed.
    private static func keyValues(_ text: String) -> [String: String]? {
        var pairs: [String: String] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex,
                  let value = String(pair[pair.index(after: equals)...]).removingPercentEncoding
            else { return nil }
            pairs[String(pair[..<equals])] = value
        }
        return pairs
    }
}
