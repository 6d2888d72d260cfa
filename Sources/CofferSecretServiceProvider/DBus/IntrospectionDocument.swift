import CGio

/// The introspection document of one object (D-Bus specification, "Introspection Data Format"):
/// the standard interfaces every GDBus object has, the object's own interfaces, and the nodes
/// below it.
enum IntrospectionDocument {
    static func xml(interfaces: [Interface], children: [String]) -> String {
        let buffer = g_string_new(nil)!
        for info in Interface.standard + interfaces.map(\.info) { g_dbus_interface_info_generate_xml(info, 2, buffer) }
        let described = String(cString: buffer.pointee.str)
        g_string_free(buffer, 1)
        return header + "<node>\n" + described + children.map { "  <node name=\"\($0)\"/>\n" }.joined() + "</node>\n"
    }

    private static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
                              "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """
}
