import CGio
import Glibc

/// Gives the memory a large call took back to the system once it is freed. GDBus turns every
/// message into a tree of values before the provider sees it, so a call with 300,000 attributes
/// grows the process by about a hundred megabytes even when the provider refuses it at once;
/// glibc keeps freed memory for later unless asked (`malloc_trim`). That only works where GLib
/// allocates with `malloc`: GLib 2.76 and later always do, and on GLib 2.74 (Debian 12) the
/// agent runs with `G_SLICE=always-malloc` (``SecretServiceProvider/needsSystemAllocator``).
enum LargeCallMemory {
    /// Arguments larger than this, serialized, count as a large call.
    static let threshold = 1 << 20

    /// Call on the main-loop thread after dispatching a call whose arguments were `size` bytes:
    /// when it was large, memory is trimmed once the loop is idle (the message is freed by then).
    static func release(afterCallOf size: Int) {
        guard size > threshold else { return }
        let source = g_idle_source_new()
        g_source_set_callback(source, { _ in
            _ = malloc_trim(0)
            return 0  // G_SOURCE_REMOVE
        }, nil, nil)
        g_source_attach(source, g_main_context_get_thread_default())
        g_source_unref(source)
    }
}
