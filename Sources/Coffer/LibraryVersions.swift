import CLibSecret

/// The versions of the C libraries Coffer uses, for diagnostics such as `coffer doctor`.
public enum LibraryVersions {
    /// libsodium's version, as the library loaded at run time reports it.
    public static var libsodium: String { Sodium.version }
    /// The libsecret version Coffer was built against (libsecret reports none at run time).
    public static var libsecret: String { "\(SECRET_MAJOR_VERSION).\(SECRET_MINOR_VERSION).\(SECRET_MICRO_VERSION)" }
}
