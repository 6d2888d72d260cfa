#include <gio/gio.h>

// GDBus, the D-Bus implementation in gio, for the Secret Service provider. libsecret, which
// Coffer already links, is built on it. Swift cannot use C macros over casts or C variadic
// functions; these fixed-arity wrappers expose the few the provider needs.

/// G_VARIANT_TYPE(text): a type string as a GVariantType.
static inline const GVariantType *coffer_variant_type(const char *text) {
    return (const GVariantType *)text;
}

/// Sets `*error` to a D-Bus error of this name (for property getters and setters).
/// GDBus names a property getter's error by its GError domain and code (GLib 2.74 encodes it
/// with g_dbus_error_encode_gerror): the Secret Service's own names are registered under a
/// domain of Coffer's so that they reach the client as themselves, not as an "UnmappedGError".
/// The org.freedesktop.DBus.Error names are GLib's own G_DBUS_ERROR codes already.
static inline void coffer_set_dbus_error(GError **error, const char *name, const char *message) {
    static const char *const secret_errors[] = {
        "org.freedesktop.Secret.Error.IsLocked", "org.freedesktop.Secret.Error.NoSession",
        "org.freedesktop.Secret.Error.NoSuchObject", NULL,
    };
    if (error == NULL) return;
    GQuark domain = g_quark_from_static_string("coffer-secret-service-error");
    for (gint code = 0; secret_errors[code] != NULL; code++) {
        // FALSE when the name is mapped already: by this code, or by libsecret's own error
        // domain once libsecret is used in this process. Either mapping names it right.
        if (g_strcmp0(name, secret_errors[code]) == 0) g_dbus_error_register_error(domain, code, name);
    }
    // The error of the domain and code the name is mapped to (G_DBUS_ERROR's for
    // org.freedesktop.DBus.Error names), with the message as given.
    *error = g_dbus_error_new_for_dbus_error(name, message);
    g_dbus_error_strip_remote_error(*error);
}
