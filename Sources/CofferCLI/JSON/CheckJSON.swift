/// `check --json`: whether the vault is sound, its sound records, and each problem as `check` prints it.
struct CheckJSON: Encodable {
    let sound: Bool
    let soundRecords: Int
    let problems: [String]
}
