import Hummingbird

/// A form-encoded request body (RFC 6749 Appendix B), read up to a limit.
package struct FormBody {
    package let values: [String: String]

    /// Why a body was refused, as an RFC 6749 `invalid_request` description.
    package struct Refusal: Error {
        package let description: String
    }

    static let limit = 64 * 1024

    /// Reads and parses the body.
    static func read(_ request: Request) async throws -> FormBody {
        guard let type = request.headers[.contentType].flatMap(MediaType.init(from:)), type.isType(.applicationUrlEncoded) else {
            throw Refusal(description: "the body must be application/x-www-form-urlencoded")
        }
        let body = request.body
        guard let buffer = try? await body.collect(upTo: limit) else { throw Refusal(description: "the body is too large") }
        return try parse(String(buffer: buffer))
    }

    /// Parses a body's text. Parameters sent twice are refused (RFC 6749 §3.1).
    package static func parse(_ text: String) throws(Refusal) -> FormBody {
        guard let pairs = URLForm.pairs(text) else { throw Refusal(description: "the body is malformed") }
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard values.updateValue(value, forKey: name) == nil else { throw Refusal(description: "\(name) is repeated") }
        }
        return FormBody(values: values)
    }

    subscript(name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
