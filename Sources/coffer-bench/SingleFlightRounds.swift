import CofferDevBackend

/// Single-flight under load, for either facade: each round expires the token, then `callers`
/// tasks ask for one at once. Prints the table, and fails unless every caller got the same
/// token and every round made exactly one request.
enum SingleFlightRounds {
    static let callers = 100
    static let rounds = 20

    /// - Parameters:
    ///   - title: The table's heading.
    ///   - requests: What `count` counts, for the table (for example "token requests").
    ///   - count: The backend's counter of those requests.
    ///   - token: One caller's request for a token.
    static func run(
        title: String, requests: String, backend: DevBackend, clock: ManualClock,
        count: () -> Int, token: @escaping @Sendable () async throws -> String
    ) async throws {
        var perRound: [Int] = []
        var durations: [Double] = []
        for _ in 0..<rounds {
            clock.advance(by: backend.configuration.tokenLifetime + 1)
            let before = count()
            let started = ContinuousClock.now
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<callers { group.addTask { try await token() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            durations.append(Measurement.microseconds(ContinuousClock.now - started))
            guard tokens.count == 1 else { throw BenchmarkFailure("callers got \(tokens.count) different tokens") }
            perRound.append(count() - before)
        }
        print("### \(title): \(callers) concurrent callers with an expired token, \(rounds) rounds\n")
        print("| \(requests) per round | rounds | median time for all \(callers) callers |")
        print("|---:|---:|---:|")
        for (made, occurrences) in Dictionary(grouping: perRound, by: { $0 }).sorted(by: { $0.key < $1.key }) {
            print("| \(made) | \(occurrences.count) | \(Measurement.format(Measurement.median(durations))) |")
        }
        print("\nexpected: exactly 1 in every round\n")
        guard perRound.allSatisfy({ $0 == 1 }) else { throw BenchmarkFailure("a round made other than one of the \(requests): \(perRound)") }
    }
}
