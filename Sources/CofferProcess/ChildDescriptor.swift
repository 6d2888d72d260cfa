/// What one of a child's descriptors is, in ``ChildCommand/spawn(descriptors:)``.
package enum ChildDescriptor: Sendable, Equatable {
    /// `/dev/null`: read-only as descriptor 0, write-only otherwise.
    case nullDevice
    /// A copy of this process's descriptor (which stays open here).
    case copy(Int32)
}
