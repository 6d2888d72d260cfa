import Glibc

/// The folder of the running executable, from `/proc/self/exe`: where the programs and the
/// library a Coffer program runs are installed. Never the working folder when that cannot be
/// read: a program there could be anyone's.
package enum ExecutableFolder {
    /// The folder, or why it cannot be known (`strerror`'s text, or "no usable path").
    package static func path() -> Result<String, ExecutableFolderUnknown> {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count)
        let reason = length < 0 ? String(cString: strerror(errno)) : "no usable path"
        let path = length > 0 && length < buffer.count ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/") else { return .failure(ExecutableFolderUnknown(reason: reason)) }
        return .success(String(path[..<slash]))
    }
}

/// Why ``ExecutableFolder`` cannot say where the executable is.
package struct ExecutableFolderUnknown: Error, Sendable {
    package let reason: String
}
