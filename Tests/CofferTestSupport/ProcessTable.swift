import Foundation

/// The processes running on this machine, found through /proc: how a test checks that a
/// script left nothing behind.
public enum ProcessTable {
    /// The live processes whose environment has `name=value`. A process that a script started
    /// inherits the script's environment, so a unique marker finds all of its descendants.
    public static func processes(withEnvironment name: String, equalTo value: String) -> [pid_t] {
        let needle = Data("\(name)=\(value)".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), pid != getpid(),
                  let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { return nil }
            let found = environment.split(separator: 0).contains { Data($0) == needle }
            return found ? pid : nil
        }
    }

    /// The live processes (other than this one) whose command line holds `text`: how a test finds
    /// what a command it gave (a prompter, a stand-in program) started, whatever its environment.
    public static func processes(withCommandLineContaining text: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), pid != getpid() else { return nil }
            return commandLine(of: pid).contains(text) ? pid : nil
        }
    }

    /// The command line of `pid`, its arguments joined by spaces; empty when it has ended.
    public static func commandLine(of pid: pid_t) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "" }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }

    /// Waits up to `timeout` until no process carries the marker; returns those still alive.
    public static func waitUntilGone(environment name: String, equalTo value: String, timeout: Duration) -> [pid_t] {
        waitUntilNone(timeout: timeout) { processes(withEnvironment: name, equalTo: value) }
    }

    /// Waits up to `timeout` until no process's command line holds `text`; returns those still alive.
    public static func waitUntilGone(commandLineContaining text: String, timeout: Duration) -> [pid_t] {
        waitUntilNone(timeout: timeout) { processes(withCommandLineContaining: text) }
    }

    private static func waitUntilNone(timeout: Duration, _ find: () -> [pid_t]) -> [pid_t] {
        let deadline = ContinuousClock.now + timeout
        var alive = find()
        while !alive.isEmpty, ContinuousClock.now < deadline {
            usleep(20_000)
            alive = find()
        }
        return alive
    }
}
