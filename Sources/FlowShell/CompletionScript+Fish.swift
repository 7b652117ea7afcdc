extension CompletionScript {
    /// A fish script: one `complete` line per subcommand, option and operand.
    var fish: String {
        let c = "complete -c \(program)"
        var lines = [
            "# fish completion for \(program), made by `\(program) completion fish`.",
            "# Load it now:     \(program) completion fish | source",
            "# or install it:   \(program) completion fish > ~/.config/fish/completions/\(program).fish",
            "",
            "\(c) -f",
        ]
        let names = commands.map(\.name).joined(separator: " ")
        for command in commands {
            lines.append(
                "\(c) -n \(fishQuoted("not __fish_seen_subcommand_from \(names)")) -a \(command.name) -d \(fishQuoted(command.summary))"
            )
        }
        for option in topLevelOptions {
            lines.append("\(c) -n \(fishQuoted("not __fish_seen_subcommand_from \(names)")) \(fishOption(option))")
        }
        for option in globalOptions { lines.append("\(c) \(fishOption(option))") }
        for command in commands {
            let condition = "-n \(fishQuoted("__fish_seen_subcommand_from \(command.name)"))"
            for option in command.options { lines.append("\(c) \(condition) \(fishOption(option))") }
            guard command.operand != nil else { continue }
            if let (words, then) = Self.words(of: command.operandValue) {
                // One of the words until one of them is there, then what follows it. The command's own name is
                // no sign of one (`help`'s words name every command, `help` too), since it is always there.
                let inCommand = "__fish_seen_subcommand_from \(command.name); and "
                let word = "__fish_seen_subcommand_from \(words.filter { $0 != command.name }.joined(separator: " "))"
                let choice = "-x -a \(fishQuoted(words.joined(separator: " ")))"
                lines.append("\(c) -n \(fishQuoted(inCommand + "not " + word)) \(choice)")
                if let operand = fishOperand(then) {
                    lines.append("\(c) -n \(fishQuoted(inCommand + word)) \(operand)")
                }
            } else if let operand = fishOperand(command.operandValue) {
                lines.append("\(c) \(condition) \(operand)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The words of a `.word` or `.choice` operand, and what follows one of them (nothing after a choice).
    private static func words(of value: CommandSpec.Value) -> ([String], CommandSpec.Value)? {
        switch value {
        case .word(let words, let then): (words, then.value)
        case .choice(let words): (words, .text)
        default: nil
        }
    }

    /// `-l name -d 'summary'`, with what completes the value when it takes one.
    private func fishOption(_ option: CommandSpec.Option) -> String {
        let name = "-l \(option.name.drop { $0 == "-" })"
        let value = option.value.flatMap(fishValue).map { " " + $0 } ?? ""
        return name + value + " -d \(fishQuoted(option.summary))"
    }

    /// `-r -F` for a file, directories, or the words of a choice; `nil` when nothing completes it.
    private func fishValue(_ value: CommandSpec.Value) -> String? {
        switch value {
        case .file: "-r -F"
        case .directory: "-x -a '(__fish_complete_directories)'"
        case .choice(let words), .word(let words, then: _): "-x -a \(fishQuoted(words.joined(separator: " ")))"
        case .text: nil
        }
    }

    /// `-F` for a file, directories, or the words of a choice; `nil` when nothing completes it.
    private func fishOperand(_ value: CommandSpec.Value) -> String? {
        value == .file ? "-F" : fishValue(value)
    }

    /// `text` in single quotes, for fish.
    private func fishQuoted(_ text: String) -> String {
        "'" + text.map { $0 == "'" || $0 == "\\" ? "\\\($0)" : String($0) }.joined() + "'"
    }
}
