/// Runs one operation for many callers: the first caller starts it, later callers join it,
/// and every caller gets its result (single-flight).
///
/// Every waiter completes: with the shared result, with ``AuthError/cancelled`` when its own
/// task is cancelled, or with the error given to ``fail(with:)``. When the last waiter leaves,
/// the operation is cancelled. Nothing waits forever as long as the operation ends, and the
/// operations the facade runs here all have deadlines.
package actor SingleFlight<Value: Sendable> {
    private struct Flight {
        let id: UInt64
        let task: Task<Void, Never>
        var waiters: [UInt64: CheckedContinuation<Result<Value, AuthError>, Never>] = [:]
    }

    private var flight: Flight?
    private var nextID: UInt64 = 0
    /// How many times an operation was started: what the single-flight tests count.
    package private(set) var started = 0

    package init() {}

    /// Whether an operation is running.
    package var isRunning: Bool { flight != nil }

    /// How many callers wait for the running operation.
    package var waiting: Int { flight?.waiters.count ?? 0 }

    /// Joins the running operation, or starts `operation` if none is running, and waits for its result.
    package func run(_ operation: @escaping @Sendable () async -> Result<Value, AuthError>) async throws(AuthError) -> Value {
        let waiterID = makeID()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, AuthError>, Never>) in
                guard !Task.isCancelled else { return continuation.resume(returning: .failure(.cancelled)) }
                if flight == nil { start(operation) }
                flight?.waiters[waiterID] = continuation
            }
        } onCancel: {
            Task { await self.leave(waiterID) }
        }
        return try result.get()
    }

    /// Ends the running operation now: every waiter gets `error`, and the operation is cancelled.
    package func fail(with error: AuthError) {
        guard let current = flight else { return }
        flight = nil
        current.task.cancel()
        for waiter in current.waiters.values { waiter.resume(returning: .failure(error)) }
    }

    private func start(_ operation: @escaping @Sendable () async -> Result<Value, AuthError>) {
        let id = makeID()
        started += 1
        let task = Task { [weak self] in
            let result = await operation()
            await self?.finish(id, result)
        }
        flight = Flight(id: id, task: task)
    }

    private func finish(_ id: UInt64, _ result: Result<Value, AuthError>) {
        guard let current = flight, current.id == id else { return }
        flight = nil
        for waiter in current.waiters.values { waiter.resume(returning: result) }
    }

    private func leave(_ waiterID: UInt64) {
        guard let waiter = flight?.waiters.removeValue(forKey: waiterID) else { return }
        waiter.resume(returning: .failure(.cancelled))
        if let current = flight, current.waiters.isEmpty {
            flight = nil
            current.task.cancel()
        }
    }

    private func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }
}
