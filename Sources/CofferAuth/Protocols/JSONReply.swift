/// JSON reply bodies: the content type and shape are checked before anything is read.
enum JSONReply {
    /// The body as a JSON object's members, after checking the content type.
    static func object(_ response: HTTPReply) throws(AuthError) -> [String: JSONValue] {
        let contentType = response.header(HeaderName.contentType)
        guard MediaType.isJSON(contentType) else {
            throw .malformedResponse(reason: "content type is \(contentType.map { String($0.prefix(64)) } ?? "missing"), not JSON")
        }
        guard let value = JSONValue(parsing: response.body) else {
            throw .malformedResponse(reason: "the body is not valid JSON")
        }
        guard let object = value.objectValue else {
            throw .malformedResponse(reason: "the body is not a JSON object")
        }
        return object
    }
}
