import CofferAuth
import Foundation
import Hummingbird

/// A JSON object request body, read up to a limit.
enum JSONBody {
    static let limit = 64 * 1024

    /// Reads the body as a JSON object; throws ``FormBody/Refusal`` (an `invalid_request`
    /// description) when it is not one.
    static func read(_ request: Request) async throws -> [String: JSONValue] {
        guard MediaType.isJSON(request.headers[.contentType]) else {
            throw FormBody.Refusal(description: "the body must be application/json")
        }
        guard let buffer = try? await request.body.collect(upTo: limit) else { throw FormBody.Refusal(description: "the body is too large") }
        guard let object = JSONValue(parsing: Data(buffer.readableBytesView))?.objectValue else {
            throw FormBody.Refusal(description: "the body is not a JSON object")
        }
        return object
    }
}
