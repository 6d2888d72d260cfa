/// Where a process runs, beyond its executable: its Flatpak app, its snap, its systemd service.
/// Parsers of the files that say so (`/proc/PID/root/.flatpak-info`, `/proc/PID/cgroup`), which
/// tests give fixtures.
enum SandboxIdentity {
    /// The app id of a Flatpak sandbox's `.flatpak-info` (a key file: `[Application]`,
    /// `name=ID`) as `flatpak:ID`; `nil` when it names none.
    static func flatpakApp(info: [UInt8]) -> String? {
        var section = ""
        for rawLine in String(decoding: info, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace()
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard section == "Application", let equals = line.firstIndex(of: "=") else { continue }
            guard line[..<equals].trimmingWhitespace() == "name" else { continue }
            let name = line[line.index(after: equals)...].trimmingWhitespace()
            return name.isEmpty ? nil : "flatpak:" + name
        }
        return nil
    }

    /// The process's cgroup path: the unified hierarchy's line of `/proc/PID/cgroup`
    /// (`0::/PATH`), or else systemd's legacy one (`N:name=systemd:/PATH`).
    static func cgroupPath(cgroup: [UInt8]) -> Substring? {
        let lines = String(decoding: cgroup, as: UTF8.self).split(whereSeparator: \.isNewline)
        func path(_ matches: (Substring) -> Bool) -> Substring? {
            for line in lines {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                if fields.count == 3, matches(fields[1]) { return fields[2] }
            }
            return nil
        }
        return path { $0.isEmpty } ?? path { $0 == "name=systemd" }
    }

    /// The snap a cgroup path's last component names (`snap.NAME.APP-….scope`,
    /// `snap.NAME.APP.service`), as `snap:NAME`.
    static func snap(cgroupPath path: Substring) -> String? {
        guard let leaf = path.split(separator: "/").last, leaf.hasPrefix("snap.") else { return nil }
        let parts = leaf.split(separator: ".")
        guard parts.count >= 3 else { return nil }
        return "snap:" + parts[1]
    }

    /// The systemd service a cgroup path's last component names, when it ends in `.service`.
    /// Scopes (`session-3.scope`, `app-gnome-….scope`) carry ids that change with every run,
    /// and would make the identity change too.
    static func serviceUnit(cgroupPath path: Substring) -> String? {
        guard let leaf = path.split(separator: "/").last, leaf.hasSuffix(".service") else { return nil }
        return String(leaf)
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
