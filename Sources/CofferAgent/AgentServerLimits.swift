import Coffer
/// The bounds the agent serves within (docs/agent.md, section 6), so that no client, however slow
/// or however many, holds up another's request or exhausts the agent.
package struct AgentServerLimits: Sendable {
    /// How long a connection has, from its accept, to send its whole request.
    package var requestDeadline: Duration
    /// How long a connection may send nothing while its request is incomplete.
    package var idleTimeout: Duration
    /// How long a client has to read its reply.
    package var replyDeadline: Duration
    /// The most connections open at once. Beyond it the oldest idle connection (one still sending
    /// its request) is closed to make room; when none is idle, the new one is refused with a reply
    /// saying so. Never more than the open-file limit allows, less a reserve for vault files.
    package var maxConnections: Int
    /// Threads that answer every request but `unlock`.
    package var workers: Int
    /// Threads that run unlocks (Argon2id, up to seconds each), so that they hold up nothing else.
    package var unlockWorkers: Int
    /// Threads that serve the requests whose program the person is asked about (the prompter
    /// may take minutes), so that a prompt holds up no other client; more prompts wait their turn.
    package var promptWorkers: Int
    /// How long a kept connection (`identify`) may wait for its next request before it is closed.
    package var keepAliveTimeout: Duration
    /// How many kept connections are served each on a thread of its own (``KeptConnectionThreads``);
    /// the others stay with the connection loop.
    package var keptConnectionThreads: Int

    package init(
        requestDeadline: Duration = .seconds(10), idleTimeout: Duration = .seconds(5), replyDeadline: Duration = .seconds(10),
        maxConnections: Int = 256, workers: Int = 2, unlockWorkers: Int = 1, promptWorkers: Int = 4,
        keepAliveTimeout: Duration = .seconds(600), keptConnectionThreads: Int = 16
    ) {
        self.requestDeadline = requestDeadline
        self.idleTimeout = idleTimeout
        self.replyDeadline = replyDeadline
        self.maxConnections = max(1, maxConnections)
        self.workers = max(1, workers)
        self.unlockWorkers = max(1, unlockWorkers)
        self.promptWorkers = max(1, promptWorkers)
        self.keepAliveTimeout = keepAliveTimeout
        self.keptConnectionThreads = max(0, keptConnectionThreads)
    }

    /// What a connection is told when its request did not arrive by ``requestDeadline``.
    var lateRequest: CofferError { .invalidArgument(reason: "the request did not arrive within \(requestDeadline)") }

    /// What a connection is told when it sent nothing of its request for ``idleTimeout``.
    var silentConnection: CofferError { .invalidArgument(reason: "the connection sent nothing for \(idleTimeout)") }
}
