import ArgumentParser
import FoundationEssentials

/// A time on the command line: an ISO 8601 date (midnight UTC), or a date and time with an
/// offset or `Z`, with or without fractional seconds.
struct LogDate: ExpressibleByArgument {
    let date: Date

    init?(argument: String) {
        let dateAndTime = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let dayOnly = Date.ISO8601FormatStyle().year().month().day()
        guard let date = (try? dateAndTime.parse(argument)) ?? (try? dayOnly.parse(argument)) else { return nil }
        self.date = date
    }
}
