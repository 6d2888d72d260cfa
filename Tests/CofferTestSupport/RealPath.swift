import Foundation

extension String {
    /// The path with every symbolic link resolved, as bytes: the path the kernel names for a
    /// running program or an open file.
    public var realPathBytes: [UInt8] { Array(URL(fileURLWithPath: self).resolvingSymlinksInPath().path.utf8) }
}
