import Coffer

extension FuzzTarget {
    /// A program's encoding, as an item's owner or access-list entry stores it
    /// (`Program(encoded:)`): any bytes give a program or a refusal, and the check every read of
    /// a record makes (`Program.check`, which builds nothing) gives the same answer; a program
    /// read encodes back to the same bytes, matches itself, and describes itself on one line
    /// with no control or format character.
    static let program = FuzzTarget(name: "program") { bytes in
        let checked = (try? Program.check(bytes[...])) != nil
        guard let program = Program(encoded: bytes) else {
            if checked { fatalError("program: the record check accepts an encoding the decoder refuses") }
            return
        }
        guard checked else { fatalError("program: the record check refuses an encoding the decoder reads") }
        guard program.encoded == bytes, Program(encoded: program.encoded) == program else {
            fatalError("program: an encoding read does not encode back to the same bytes")
        }
        guard program.matches(program) else { fatalError("program: a program does not match itself") }
        let shown = program.description.unicodeScalars.contains { scalar in
            [.control, .format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
        }
        guard !shown else { fatalError("program: the description holds a control or format character") }
    }
}
