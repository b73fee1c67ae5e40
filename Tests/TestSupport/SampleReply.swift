/// A reply with what replies hold (a heading, a long paragraph, a list with a long item and a
/// nested one, a quote, a table with alignments, code, a link), as Python's rich was shown it
/// for the picture of the target in BENCHMARKS.md: for the renderer's tests, the terminal tests
/// and the benchmark server's Markdown reply.
public enum SampleReply {
    public static let markdown = """
        # Deploy checklist

        Before a release goes out, the pipeline builds every target, runs the integration suite against a staging database, and waits for a person to approve the change in the review channel.

        - build the artifacts
        - run the integration suite against staging, which takes about twelve minutes on the shared runners
          - retry once on a flaky network failure

        > Never deploy on a Friday afternoon unless the change is a one-line fix with a rollback plan.

        | stage | minutes | owner |
        |:------|--------:|-------|
        | build | 4 | ci |
        | integration | 12 | qa-team |

        ```bash
        # promote the build
        ./deploy.sh --env prod --tag "v2.4.1" && echo "ok"
        ```

        See [the runbook](https://example.com/runbook) for details.

        """

    /// `text` cut as a model streams it: after each space and line break, and every
    /// `longest` characters inside a longer word (so pieces end inside words and rows too).
    public static func tokens(_ text: String, longest: Int = 8) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text {
            current.append(character)
            if character == " " || character == "\n" || current.count >= longest {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
