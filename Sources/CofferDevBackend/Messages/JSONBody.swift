import Foundation
import Hummingbird

/// A JSON object request body, read up to a limit.
enum JSONBody {
    static let limit = 64 * 1024

    /// Reads the body as a JSON object; throws ``FormBody/Refusal`` (an `invalid_request`
    /// description) when it is not one. `application/json` and `application/*+json` are JSON.
    static func read(_ request: Request) async throws -> [String: JSON] {
        guard let type = request.headers[.contentType].flatMap(MediaType.init(from:)),
              type.isType(.applicationJson) || (type.isType(.application) && type.subType.hasSuffix("+json"))
        else { throw FormBody.Refusal(description: "the body must be application/json") }
        guard let buffer = try? await request.body.collect(upTo: limit) else { throw FormBody.Refusal(description: "the body is too large") }
        guard let object = JSON(parsing: Data(buffer.readableBytesView))?.objectValue else {
            throw FormBody.Refusal(description: "the body is not a JSON object")
        }
        return object
    }
}
