import CGio

/// The five interfaces of the Secret Service API 0.2 (freedesktop.org, "Secret Service API
/// Draft 0.2"), as GDBus introspection data. GDBus checks every call's signature against them
/// before the provider sees it, answering `org.freedesktop.DBus.Error.InvalidArgs` or
/// `UnknownMethod` itself, and checks `org.freedesktop.DBus.Properties` calls against their
/// properties.
enum Interface: String, CaseIterable, Sendable {
    case service = "org.freedesktop.Secret.Service"
    case collection = "org.freedesktop.Secret.Collection"
    case item = "org.freedesktop.Secret.Item"
    case session = "org.freedesktop.Secret.Session"
    case prompt = "org.freedesktop.Secret.Prompt"

    /// The interface's introspection data, parsed once and kept for the process's life.
    var info: UnsafeMutablePointer<GDBusInterfaceInfo> {
        Interface.parsed.interfaces[self]!.pointer
    }

    /// The names of the interface's readable properties, in the order of the introspection data.
    var readableProperties: [String] {
        var names: [String] = []
        guard var property = info.pointee.properties else { return names }
        while let current = property.pointee {
            // G_DBUS_PROPERTY_INFO_FLAGS_READABLE, which Swift does not import by that name.
            if current.pointee.flags.rawValue & 1 != 0 {
                names.append(String(cString: current.pointee.name))
            }
            property += 1
        }
        return names
    }

    /// The standard interfaces every object GDBus exports has (D-Bus specification, "Standard
    /// Interfaces"), for the introspection documents the provider writes itself.
    static var standard: [UnsafeMutablePointer<GDBusInterfaceInfo>] { parsed.standard.map(\.pointer) }

    /// GDBus's parsed node info and its interfaces: immutable once parsed, read from any thread.
    private final class Parsed: Sendable {
        struct Info: @unchecked Sendable { let pointer: UnsafeMutablePointer<GDBusInterfaceInfo> }
        let interfaces: [Interface: Info]
        let standard: [Info]

        init() {
            var error: UnsafeMutablePointer<GError>?
            guard let node = g_dbus_node_info_new_for_xml(Interface.xml, &error) else {
                fatalError("the Secret Service introspection data does not parse")
            }
            var interfaces: [Interface: Info] = [:]
            for interface in Interface.allCases {
                guard let info = g_dbus_node_info_lookup_interface(node, interface.rawValue) else {
                    fatalError("\(interface.rawValue) is missing from the introspection data")
                }
                interfaces[interface] = Info(pointer: info)
            }
            self.interfaces = interfaces
            standard = ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer"].map { name in
                guard let info = g_dbus_node_info_lookup_interface(node, name) else { fatalError("\(name) is missing from the introspection data") }
                return Info(pointer: info)
            }
        }
    }

    private static let parsed = Parsed()

    static let xml = """
        <node>
          <interface name="org.freedesktop.Secret.Service">
            <method name="OpenSession">
              <arg name="algorithm" type="s" direction="in"/>
              <arg name="input" type="v" direction="in"/>
              <arg name="output" type="v" direction="out"/>
              <arg name="result" type="o" direction="out"/>
            </method>
            <method name="CreateCollection">
              <arg name="properties" type="a{sv}" direction="in"/>
              <arg name="alias" type="s" direction="in"/>
              <arg name="collection" type="o" direction="out"/>
              <arg name="prompt" type="o" direction="out"/>
            </method>
            <method name="SearchItems">
              <arg name="attributes" type="a{ss}" direction="in"/>
              <arg name="unlocked" type="ao" direction="out"/>
              <arg name="locked" type="ao" direction="out"/>
            </method>
            <method name="Unlock">
              <arg name="objects" type="ao" direction="in"/>
              <arg name="unlocked" type="ao" direction="out"/>
              <arg name="prompt" type="o" direction="out"/>
            </method>
            <method name="Lock">
              <arg name="objects" type="ao" direction="in"/>
              <arg name="locked" type="ao" direction="out"/>
              <arg name="Prompt" type="o" direction="out"/>
            </method>
            <method name="GetSecrets">
              <arg name="items" type="ao" direction="in"/>
              <arg name="session" type="o" direction="in"/>
              <arg name="secrets" type="a{o(oayays)}" direction="out"/>
            </method>
            <method name="ReadAlias">
              <arg name="name" type="s" direction="in"/>
              <arg name="collection" type="o" direction="out"/>
            </method>
            <method name="SetAlias">
              <arg name="name" type="s" direction="in"/>
              <arg name="collection" type="o" direction="in"/>
            </method>
            <property name="Collections" type="ao" access="read"/>
            <signal name="CollectionCreated"><arg name="collection" type="o"/></signal>
            <signal name="CollectionDeleted"><arg name="collection" type="o"/></signal>
            <signal name="CollectionChanged"><arg name="collection" type="o"/></signal>
          </interface>
          <interface name="org.freedesktop.Secret.Collection">
            <method name="Delete">
              <arg name="prompt" type="o" direction="out"/>
            </method>
            <method name="SearchItems">
              <arg name="attributes" type="a{ss}" direction="in"/>
              <arg name="results" type="ao" direction="out"/>
            </method>
            <method name="CreateItem">
              <arg name="properties" type="a{sv}" direction="in"/>
              <arg name="secret" type="(oayays)" direction="in"/>
              <arg name="replace" type="b" direction="in"/>
              <arg name="item" type="o" direction="out"/>
              <arg name="prompt" type="o" direction="out"/>
            </method>
            <property name="Items" type="ao" access="read"/>
            <property name="Label" type="s" access="readwrite"/>
            <property name="Locked" type="b" access="read"/>
            <property name="Created" type="t" access="read"/>
            <property name="Modified" type="t" access="read"/>
            <signal name="ItemCreated"><arg name="item" type="o"/></signal>
            <signal name="ItemDeleted"><arg name="item" type="o"/></signal>
            <signal name="ItemChanged"><arg name="item" type="o"/></signal>
          </interface>
          <interface name="org.freedesktop.Secret.Item">
            <method name="Delete">
              <arg name="Prompt" type="o" direction="out"/>
            </method>
            <method name="GetSecret">
              <arg name="session" type="o" direction="in"/>
              <arg name="secret" type="(oayays)" direction="out"/>
            </method>
            <method name="SetSecret">
              <arg name="secret" type="(oayays)" direction="in"/>
            </method>
            <property name="Locked" type="b" access="read"/>
            <property name="Attributes" type="a{ss}" access="readwrite"/>
            <property name="Label" type="s" access="readwrite"/>
            <property name="Type" type="s" access="read"/>
            <property name="Created" type="t" access="read"/>
            <property name="Modified" type="t" access="read"/>
          </interface>
          <interface name="org.freedesktop.Secret.Session">
            <method name="Close"/>
          </interface>
          <interface name="org.freedesktop.Secret.Prompt">
            <method name="Prompt">
              <arg name="window-id" type="s" direction="in"/>
            </method>
            <method name="Dismiss"/>
            <signal name="Completed">
              <arg name="dismissed" type="b"/>
              <arg name="result" type="v"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>
        </node>
        """
}
