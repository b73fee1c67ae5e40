import FoundationEssentials
import Glibc

/// A model's server that turns texts into vectors (`/v1/embeddings`). Optional: a server that
/// does not offer it answers nil, and search is BM25 alone.
public protocol EmbeddingProvider: Sendable {
    /// The vectors, in the order of `texts`; nil when the server has no embeddings.
    func embeddings(_ texts: [String]) async throws -> [[Float]]?
    /// Vectors of different models do not compare: each is stored with its model's name.
    var embeddingModel: String { get }
}

/// Passage vectors in the history database (local_chunk_vectors), as little-endian float32
/// blobs, normalised so that similarity is a dot product.
public struct VectorIndex: Sendable {
    let history: SessionHistory
    /// Passages sent to the server per request.
    var batch = 32

    public init(history: SessionHistory) {
        self.history = history
    }

    /// Gives every passage of the session without a vector of this model one. Returns how
    /// many were made, or nil when the server offers no embeddings.
    public func fill(using provider: any EmbeddingProvider) async throws -> Int? {
        let model = provider.embeddingModel
        let missing: [NamedRow] = try history.tables { database in
            try database.run("""
                DELETE FROM local_chunk_vectors WHERE model != ?1 AND chunk_id IN
                    (SELECT c.id FROM local_chunks c JOIN local_documents d ON d.id = c.document_id WHERE d.session = ?2)
                """, .text(model), .text(history.session))
            return try database.query("""
                SELECT c.id AS id, c.heading AS heading, c.text AS text FROM local_chunks c JOIN local_documents d ON d.id = c.document_id
                LEFT JOIN local_chunk_vectors v ON v.chunk_id = c.id
                WHERE d.session = ? AND v.chunk_id IS NULL ORDER BY c.id
                """, .text(history.session))
        }
        var made = 0
        var start = 0
        while start < missing.count {
            try Task.checkCancellation()
            let rows = missing[start..<min(start + batch, missing.count)]
            let texts = rows.map { row in
                let heading = row["heading"].string ?? ""
                return (heading.isEmpty ? "" : heading + "\n") + (row["text"].string ?? "")
            }
            guard let vectors = try await provider.embeddings(texts) else { return made == 0 ? nil : made }
            guard vectors.count == rows.count else {
                throw HarkError.protocolViolation("the server gave \(vectors.count) embeddings for \(rows.count) texts")
            }
            try history.tables { database in
                try database.transaction {
                    for (row, vector) in zip(rows, vectors) {
                        try database.run("INSERT OR REPLACE INTO local_chunk_vectors(chunk_id, model, vector) VALUES (?, ?, ?)",
                                         row["id"], .text(model), .blob(Self.encode(Self.normalised(vector))))
                    }
                }
            }
            made += rows.count
            start += batch
        }
        return made
    }

    /// Whether the session has vectors of this model.
    public func hasVectors(model: String) throws -> Bool {
        try history.tables { database in
            try database.scalar("""
                SELECT EXISTS (SELECT 1 FROM local_chunk_vectors v JOIN local_chunks c ON c.id = v.chunk_id
                               JOIN local_documents d ON d.id = c.document_id WHERE d.session = ? AND v.model = ?)
                """, .text(history.session), .text(model)).int == 1
        }
    }

    /// The passages most similar to `query`, best first.
    public func nearest(_ query: [Float], model: String, limit: Int) throws -> [(id: Int64, similarity: Float)] {
        let target = Self.normalised(query)
        var best: [(id: Int64, similarity: Float)] = []
        try history.tables { database in
            let statement = try database.prepare("""
                SELECT v.chunk_id AS chunk_id, v.vector AS vector FROM local_chunk_vectors v JOIN local_chunks c ON c.id = v.chunk_id
                JOIN local_documents d ON d.id = c.document_id WHERE d.session = ? AND v.model = ? ORDER BY v.chunk_id
                """)
            try database.locked {
                try statement.bind([.text(history.session), .text(model)])
                let names = statement.columnNames
                while try statement.step() {
                    let row = statement.row(names: names)
                    guard let id = row["chunk_id"].int64, case .blob(let bytes) = row["vector"] else { continue }
                    let similarity = Self.dot(target, bytes)
                    if best.count < limit || similarity > best[best.count - 1].similarity {
                        let at = best.firstIndex { $0.similarity < similarity } ?? best.count
                        best.insert((id, similarity), at: at)
                        if best.count > limit { best.removeLast() }
                    }
                }
            }
        }
        return best
    }

    static func normalised(_ vector: [Float]) -> [Float] {
        let length = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return length > 0 ? vector.map { $0 / length } : vector
    }

    static func encode(_ vector: [Float]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(vector.count * 4)
        for value in vector {
            let bits: UInt32 = value.bitPattern
            for shift: UInt32 in [0, 8, 16, 24] { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> [Float] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { offset in Float(bitPattern: word(bytes, at: offset)) }
    }

    /// Four bytes, little-endian.
    @inline(__always) static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        let low = UInt32(bytes[offset]) | (UInt32(bytes[offset + 1]) << 8)
        let high = (UInt32(bytes[offset + 2]) << 16) | (UInt32(bytes[offset + 3]) << 24)
        return low | high
    }

    /// The dot product of a vector and a stored one, read in place.
    static func dot(_ vector: [Float], _ bytes: [UInt8]) -> Float {
        let count = min(vector.count, bytes.count / 4)
        var sum: Float = 0
        for index in 0..<count {
            sum += vector[index] * Float(bitPattern: word(bytes, at: index * 4))
        }
        return sum
    }
}
