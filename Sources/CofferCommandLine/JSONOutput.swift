import FoundationEssentials

/// `--json` output: one JSON document on stdout, keys sorted, dates in ISO 8601 (UTC), then a newline.
package enum JSONOutput {
    package static func write(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try StandardStreams.write(try encoder.encode(value) + Data("\n".utf8))
    }
}
