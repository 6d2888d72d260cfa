import Hummingbird

/// The provider's HTML pages: a plain document with no script, not cached, not framed.
enum HTMLPage {
    /// `text` with `& < > " '` escaped, for element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A page with this title and body (already HTML).
    static func response(title: String, body: String, status: HTTPResponse.Status = .ok) -> Response {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <style>body{font-family:sans-serif;max-width:30em;margin:3em auto}label{display:block;margin:.5em 0}\
            .error{color:#a00}</style></head>
            <body><h1>\(escape(title))</h1>
            \(body)
            </body></html>

            """
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> String {
        #"<input type="hidden" name="\#(escape(name))" value="\#(escape(value))">"#
    }

    /// A paragraph, marked as an error when `error` is set.
    static func message(_ text: String?, error: Bool = true) -> String {
        guard let text else { return "" }
        return #"<p\#(error ? #" class="error""# : "")>\#(escape(text))</p>"#
    }
}
