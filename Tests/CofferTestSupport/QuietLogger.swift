import Logging

/// Logs warnings and errors only, so test output stays readable.
public let quietLogger: Logger = {
    var logger = Logger(label: "coffer.tests")
    logger.logLevel = .warning
    return logger
}()
