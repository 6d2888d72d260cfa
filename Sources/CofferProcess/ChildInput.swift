/// What a run's child reads on its standard input.
package enum ChildInput {
    /// `/dev/null`.
    case nullDevice
    /// These bytes, then end of file. They are sent through a socket, never an argument.
    case bytes(UnsafeRawBufferPointer)
}
