#include <gio/gio.h>

// GDBus, the D-Bus implementation in gio, for the Secret Service provider. libsecret, which
// Coffer already links, is built on it. Swift cannot use C macros over casts or C variadic
// functions; these fixed-arity wrappers expose the few the provider needs.

/// G_VARIANT_TYPE(text): a type string as a GVariantType.
static inline const GVariantType *coffer_variant_type(const char *text) {
    return (const GVariantType *)text;
}

/// Sets `*error` to a D-Bus error of this name (for property getters and setters).
static inline void coffer_set_dbus_error(GError **error, const char *name, const char *message) {
    if (error != NULL) *error = g_dbus_error_new_for_dbus_error(name, message);
}
