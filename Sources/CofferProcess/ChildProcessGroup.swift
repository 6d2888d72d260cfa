/// Which process group a child runs in.
package enum ChildProcessGroup: Sendable, Equatable {
    /// A group of its own, which it leads: one signal reaches it and everything it started.
    case own
    /// A session of its own, which it leads, apart from any terminal (a daemon).
    case newSession
    /// This process's group: a terminal's Ctrl-C reaches both (the test suite's children).
    case caller
}
