/// A line diff in unified format (`@@ -a,b +c,d @@` hunks with three lines of context), from
/// Myers' O(ND) algorithm after trimming the common head and tail. Very different texts
/// (more than `maxEdits` changed lines) are shown as all-removed, all-added instead of
/// spending time and memory on the shortest script.
public enum UnifiedDiff {
    public enum Line: Sendable, Equatable {
        case hunk(String)
        case context(String)
        case removed(String)
        case added(String)
    }

    enum Op: Equatable { case equal, delete, insert }

    public static func lines(old: String, new: String, context: Int = 3, maxEdits: Int = 2000) -> [Line] {
        let a = split(old)
        let b = split(new)
        let ops = script(a, b, maxEdits: maxEdits)
        return hunks(ops, a, b, context: context)
    }

    static func split(_ text: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The edit script: for each step, whether a line is kept, removed from `a` or added from `b`.
    static func script(_ a: [Substring], _ b: [Substring], maxEdits: Int) -> [Op] {
        var head = 0
        while head < a.count, head < b.count, a[head] == b[head] { head += 1 }
        var tail = 0
        while tail < a.count - head, tail < b.count - head, a[a.count - 1 - tail] == b[b.count - 1 - tail] { tail += 1 }
        let middleA = a[head..<(a.count - tail)]
        let middleB = b[head..<(b.count - tail)]
        let middle = myers(Array(middleA), Array(middleB), maxEdits: maxEdits)
            ?? Array(repeating: .delete, count: middleA.count) + Array(repeating: .insert, count: middleB.count)
        return Array(repeating: .equal, count: head) + middle + Array(repeating: .equal, count: tail)
    }

    /// The shortest edit script, or nil when it needs more than `maxEdits` edits.
    static func myers(_ a: [Substring], _ b: [Substring], maxEdits: Int) -> [Op]? {
        let n = a.count, m = b.count
        if n == 0 || m == 0 { return Array(repeating: .delete, count: n) + Array(repeating: .insert, count: m) }
        let limit = min(n + m, maxEdits)
        let offset = limit + 1
        var v = [Int](repeating: 0, count: 2 * limit + 3)
        // trace[d] holds v[-d...d] as it was before step d.
        var trace: [[Int]] = []
        for d in 0...limit {
            trace.append(Array(v[(offset - d)...(offset + d)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1
                var y = x - k
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                v[offset + k] = x
                if x >= n, y >= m { return backtrack(trace, n: n, m: m) }
            }
        }
        return nil
    }

    private static func backtrack(_ trace: [[Int]], n: Int, m: Int) -> [Op] {
        var ops: [Op] = []
        var x = n, y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let row = trace[d]
            func at(_ k: Int) -> Int { row[k + d] }
            let k = x - y
            let previousK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1
            let previousX = d == 0 ? 0 : at(previousK)
            let previousY = previousX - previousK
            while x > previousX, y > previousY {
                ops.append(.equal)
                x -= 1
                y -= 1
            }
            if d > 0 {
                ops.append(x == previousX ? .insert : .delete)
                x = previousX
                y = previousY
            }
        }
        return ops.reversed()
    }

    static func hunks(_ ops: [Op], _ a: [Substring], _ b: [Substring], context: Int) -> [Line] {
        // Positions in a and b before each step.
        var positions: [(Int, Int)] = []
        var x = 0, y = 0
        for op in ops {
            positions.append((x, y))
            if op != .insert { x += 1 }
            if op != .delete { y += 1 }
        }
        let changes = ops.indices.filter { ops[$0] != .equal }
        guard !changes.isEmpty else { return [] }
        var groups: [Range<Int>] = []
        for change in changes {
            let start = max(0, change - context), end = min(ops.count, change + context + 1)
            if let last = groups.last, start <= last.upperBound {
                groups[groups.count - 1] = last.lowerBound..<max(last.upperBound, end)
            } else {
                groups.append(start..<end)
            }
        }
        var lines: [Line] = []
        for group in groups {
            let slice = ops[group]
            let oldCount = slice.filter { $0 != .insert }.count
            let newCount = slice.filter { $0 != .delete }.count
            let (oldStart, newStart) = positions[group.lowerBound]
            lines.append(.hunk("@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@"))
            for index in group {
                let (i, j) = positions[index]
                switch ops[index] {
                case .equal: lines.append(.context(String(a[i])))
                case .delete: lines.append(.removed(String(a[i])))
                case .insert: lines.append(.added(String(b[j])))
                }
            }
        }
        return lines
    }

    /// GNU style: "3" for one line, "3,4" for more, "2,0" (the line before) for none.
    private static func range(_ start: Int, _ count: Int) -> String {
        if count == 0 { return "\(start),0" }
        return count == 1 ? "\(start + 1)" : "\(start + 1),\(count)"
    }
}
