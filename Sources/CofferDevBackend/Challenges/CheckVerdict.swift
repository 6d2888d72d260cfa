/// What a security check says about one client in one request.
enum CheckVerdict: Sendable {
    /// Satisfied; this is what the success sends.
    case satisfied(JSON)
    /// Not yet: this challenge goes to the client (`null` or an object).
    case challenge(JSON)
    /// Failed, for example blocked: this failure goes to the client.
    case failure(JSON)
}
