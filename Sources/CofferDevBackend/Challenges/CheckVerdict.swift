import CofferAuth
/// What a security check says about one client in one request.
enum CheckVerdict: Sendable {
    /// Satisfied; this is what the success sends.
    case satisfied(JSONValue)
    /// Not yet: this challenge goes to the client (`null` or an object).
    case challenge(JSONValue)
    /// Failed, for example blocked: this failure goes to the client.
    case failure(JSONValue)
}
