import Glibc

/// A child's standard error as it comes, kept up to a limit (the rest is read and dropped, so
/// the child never blocks on it).
struct ChildErrorCapture {
    let descriptor: Int32
    let limit: Int
    private(set) var isOpen = true
    private(set) var bytes: [UInt8] = []

    init(descriptor: Int32, limit: Int) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// Reads one chunk; `false` when nothing was there.
    @discardableResult
    mutating func read() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &chunk, chunk.count)
        if count > 0 { bytes += chunk.prefix(min(count, max(limit - bytes.count, 0))) }
        return Self.after(reading: count, open: &isOpen)
    }

    /// After a `read` that returned `count` on a non-blocking stream: marks the stream closed at
    /// its end or on an error (not on `EAGAIN` or `EINTR`); whether bytes came.
    static func after(reading count: Int, open: inout Bool) -> Bool {
        if count > 0 { return true }
        if count == 0 || (errno != EAGAIN && errno != EINTR) { open = false }
        return false
    }
}
