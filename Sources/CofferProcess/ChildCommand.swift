import CLinux
import Glibc

/// A program to run as a child process, and everything it starts with: an absolute path (never
/// a `$PATH` search), its arguments, exactly the environment listed (nothing is inherited), and
/// the process group it runs in.
///
/// ``spawn(descriptors:)`` starts it with only the descriptors named; ``run(input:output:errors:errorLimit:until:cancellation:)``
/// runs it to its end, bounded in time and output.
package struct ChildCommand: Sendable {
    /// The program's absolute path; it is also the child's `argv[0]`.
    package var executable: String
    /// `argv[1...]`.
    package var arguments: [String]
    /// The child's whole environment.
    package var environment: [String: String]
    package var processGroup: ChildProcessGroup

    package init(executable: String, arguments: [String] = [], environment: [String: String], processGroup: ChildProcessGroup = .own) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.processGroup = processGroup
    }

    /// Starts the program with the descriptors `descriptors` names (the child's number, and
    /// what it is) and no other: every other descriptor is closed in the child, whatever this
    /// process holds open. The child starts with every signal's default disposition and no
    /// signal blocked. The caller reaps it (``SpawnedChild/wait(until:)``).
    package func spawn(descriptors: [Int32: ChildDescriptor]) throws(ChildSpawnFailure) -> SpawnedChild {
        guard executable.hasPrefix("/") else { throw .notAbsolute(executable) }
        guard descriptors.keys.allSatisfy({ $0 >= 0 }) else { throw .system(call: "descriptor map", errno: EBADF) }
        let firstUnnamed = (descriptors.keys.max() ?? -1) + 1

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Each source is first copied above every target (close-on-exec in this process), so
        // that placing one target never overwrites another's source.
        var copies: [Int32] = []
        defer { copies.forEach { close($0) } }
        for target in Int32(0)..<firstUnnamed {
            switch descriptors[target] {
            case nil:
                try Self.check(posix_spawn_file_actions_addclose(&actions, target), "posix_spawn_file_actions_addclose")
            case .nullDevice:
                try Self.check(
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0),
                    "posix_spawn_file_actions_addopen")
            case .copy(let source):
                let copy = fcntl(source, F_DUPFD_CLOEXEC, firstUnnamed)
                guard copy >= 0 else { throw .system(call: "fcntl(F_DUPFD_CLOEXEC)", errno: errno) }
                copies.append(copy)
                try Self.check(posix_spawn_file_actions_adddup2(&actions, copy, target), "posix_spawn_file_actions_adddup2")
            }
        }
        // Every other descriptor closes in the child, close-on-exec or not yet (one another
        // thread has just accepted or opened): nothing spawns without this action.
        try Self.check(coffer_spawn_add_closefrom(&actions, firstUnnamed), "posix_spawn_file_actions_addclosefrom_np")

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        try Self.check(posix_spawnattr_setsigdefault(&attributes, &all), "posix_spawnattr_setsigdefault")
        try Self.check(posix_spawnattr_setsigmask(&attributes, &none), "posix_spawnattr_setsigmask")
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        switch processGroup {
        case .own:
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            try Self.check(posix_spawnattr_setpgroup(&attributes, 0), "posix_spawnattr_setpgroup")
        case .newSession:
            flags |= COFFER_POSIX_SPAWN_SETSID
        case .caller:
            break
        }
        try Self.check(posix_spawnattr_setflags(&attributes, Int16(flags)), "posix_spawnattr_setflags")

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw .cannotRun(executable, errno: result) }
        return SpawnedChild(pid: pid, processGroup: processGroup == .caller ? nil : pid)
    }

    /// A spawn action or attribute that was not recorded (out of memory, a descriptor number
    /// beyond the limit) stops the spawn: without it the child would start with this
    /// process's descriptor, signals or group.
    private static func check(_ result: Int32, _ call: String) throws(ChildSpawnFailure) {
        guard result == 0 else { throw .system(call: call, errno: result) }
    }
}
