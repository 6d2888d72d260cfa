/// `org.freedesktop.Secret.Session`, at each session's path.
extension SecretServiceObjects {
    func sessionCall(_ call: MethodCall) throws(DBusError) -> [Variant] {
        guard call.method == "Close" else { throw .notSupported("no method \(call.method)") }
        try sessions.close(call.path, by: call.sender)
        return []
    }
}
