#include <gio/gio.h>
// malloc_trim, with which the provider gives back the memory GDBus took for a large message.
#include <malloc.h>

// GDBus, the D-Bus implementation in gio, for the Secret Service provider. libsecret, which
// Coffer already links, is built on it. Swift cannot use C macros over casts or C variadic
// functions; this wrapper exposes the one the provider needs.

/// G_VARIANT_TYPE(text): a type string as a GVariantType. A cast, not a copy: GLib reads `text`
/// later, so Swift calls it only through Variant.withVariantType, inside the C string's lifetime
/// (VariantTests.testTheTypeCastIsCalledOnlyWhereItsStringLivesThroughTheCall).
static inline const GVariantType *coffer_variant_type(const char *text) {
    return (const GVariantType *)text;
}
