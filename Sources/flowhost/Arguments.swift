/// A subcommand's arguments, parsed by hand: positional values, repeatable `--option VALUE`s and flags.
struct Arguments {
    var positional: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Parses `arguments` given the options that take a value and the flags allowed.
    ///
    /// - Throws: ``Exit`` with ``ExitCode/usage`` for an unknown option or a missing value.
    init(_ arguments: [String], options valued: Set<String>, flags allowed: Set<String>, usage: String) throws(Exit) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--help" || argument == "-h" {
                flags.insert("--help")
            } else if valued.contains(argument) {
                guard let value = iterator.next() else {
                    throw Exit(.usage, "flowhost: \(argument) needs a value\n\(usage)")
                }
                options[argument, default: []].append(value)
            } else if let equals = argument.firstIndex(of: "="), valued.contains(String(argument[..<equals])) {
                options[String(argument[..<equals]), default: []].append(
                    String(argument[argument.index(after: equals)...]))
            } else if allowed.contains(argument) {
                flags.insert(argument)
            } else if argument.hasPrefix("-") && argument != "-" {
                throw Exit(.usage, "flowhost: unknown option '\(argument)'\n\(usage)")
            } else {
                positional.append(argument)
            }
        }
    }

    /// The one positional argument, or a usage error.
    func single(_ what: String, usage: String) throws(Exit) -> String {
        guard positional.count == 1 else {
            let problem = positional.isEmpty ? "missing \(what)" : "unexpected argument '\(positional[1])'"
            throw Exit(.usage, "flowhost: \(problem)\n\(usage)")
        }
        return positional[0]
    }
}
