/// The version every Coffer executable prints for `--version`.
package enum CofferVersion {
    package static let current = "0.1.0"
}
