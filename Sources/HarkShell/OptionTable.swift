/// A command line's options by name: a few entries searched in order. Not a Dictionary: the
/// first `Dictionary<String, …>` a process makes costs the Swift runtime a scan of every
/// protocol conformance in the binary, a measurable part of a 6 ms `hark search`.
struct OptionTable<Value> {
    private var entries: [(name: String, value: Value)] = []

    subscript(name: String) -> Value? {
        get { entries.first { $0.name == name }?.value }
        set {
            entries.removeAll { $0.name == name }
            if let newValue { entries.append((name, newValue)) }
        }
    }

    subscript(name: String, default fallback: @autoclosure () -> Value) -> Value {
        get { self[name] ?? fallback() }
        set { self[name] = newValue }
    }

    func contains(_ name: String) -> Bool { entries.contains { $0.name == name } }
}
