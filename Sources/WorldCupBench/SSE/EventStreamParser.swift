import Foundation

/// Reads an HTTP/1.1 response that carries an event stream, as its bytes arrive: the head
/// (which must say 200), then the body (chunked or not), cut into server-sent events.
///
/// The benchmark reads ten thousand of these on one thread, so it works on bytes and makes a
/// `String` only of an event's fields.
struct EventStreamParser {
    /// One server-sent event: its `event:` name (`message` when none), `id:` and `data:` lines.
    struct Event: Equatable {
        var name: String
        var id: String?
        var data: String
    }

    /// Bytes received and not parsed yet (HTTP framing), from `start`.
    private var received: [UInt8] = []
    private var start = 0
    private var headRead = false
    private var chunked = false
    /// Bytes of the current chunk still to come; 0: a size line comes next (or its CRLF, below).
    private var chunkLeft = 0
    private var chunkEndDue = false
    /// The body's text not yet ending an event.
    private var text: [UInt8] = []
    /// Whether the body ended (the last chunk came).
    private(set) var ended = false

    /// Takes `bytes` as they came off the socket; returns the events they completed.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws -> [Event] {
        received.append(contentsOf: bytes)
        if !headRead {
            guard let end = find([13, 10, 13, 10], in: received, from: start) else { return [] }
            let head = String(decoding: received[start..<end], as: UTF8.self)
            let status = head.split(separator: "\r\n").first ?? ""
            guard status.split(separator: " ").dropFirst().first == "200" else {
                throw BenchError("The server answered the event stream with “\(status)” instead of 200.")
            }
            chunked = head.lowercased().contains("transfer-encoding: chunked")
            headRead = true
            start = end + 4
        }
        if chunked { try dechunk() } else {
            text.append(contentsOf: received[start...])
            start = received.count
        }
        if start == received.count {
            received.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 4096 {
            received.removeFirst(start)
            start = 0
        }
        return events()
    }

    /// Moves the chunks' data from `received` to `text`.
    private mutating func dechunk() throws {
        while start < received.count, !ended {
            if chunkLeft > 0 {
                let count = min(chunkLeft, received.count - start)
                text.append(contentsOf: received[start..<start + count])
                start += count
                chunkLeft -= count
                chunkEndDue = chunkLeft == 0
            } else if chunkEndDue {
                guard received.count - start >= 2 else { return }
                start += 2
                chunkEndDue = false
            } else {
                guard let lineEnd = find([13, 10], in: received, from: start) else { return }
                let line = String(decoding: received[start..<lineEnd], as: UTF8.self)
                guard let size = Int(line.split(separator: ";").first ?? "", radix: 16) else {
                    throw BenchError("The server's event stream has a chunk size that is not hexadecimal: “\(line)”.")
                }
                start = lineEnd + 2
                if size == 0 { ended = true } else { chunkLeft = size }
            }
        }
    }

    /// The events that `text` completes (each ends with an empty line), removed from it.
    private mutating func events() -> [Event] {
        var events: [Event] = []
        var from = 0
        while let end = find([10, 10], in: text, from: from) {
            var event = Event(name: "message", id: nil, data: "")
            var dataLines: [Substring] = []
            let block = String(decoding: text[from..<end], as: UTF8.self)
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                var value = line[line.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
                switch line[..<colon] {
                case "event": event.name = String(value)
                case "id": event.id = String(value)
                case "data": dataLines.append(value)
                default: break // retry:, comments
                }
            }
            event.data = dataLines.joined(separator: "\n")
            if block.contains(where: { !$0.isWhitespace }) { events.append(event) }
            from = end + 2
        }
        if from > 0 { text.removeFirst(from) }
        return events
    }

    /// Where `needle` first occurs in `bytes` at or after `from`.
    private func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard bytes.count - from >= needle.count else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            var index = from
            let last = buffer.count - needle.count
            while index <= last {
                guard let found = memchr(buffer.baseAddress! + index, Int32(needle[0]), last - index + 1) else { return nil }
                index = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - buffer.baseAddress!
                if (1..<needle.count).allSatisfy({ buffer[index + $0] == needle[$0] }) { return index }
                index += 1
            }
            return nil
        }
    }
}

/// The page's JSON, as far as the benchmark reads it: which rows a batch placed, with their wins.
enum BoardEvents {
    /// A team's row with its wins: a tap of the team is known by the wins it gave it.
    struct Placed: Hashable, Sendable {
        var id: Int64
        var wins: Int
    }

    /// The rows placed by a `batches` event's batches (its `data`): every row event carrying
    /// the team's values (`team`), in order. Nil when the data is not such JSON.
    static func placedRows(inBatches data: String) -> [Placed]? {
        guard let batches = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [[String: Any]] else { return nil }
        var placed: [Placed] = []
        for batch in batches {
            guard let rows = batch["rows"] as? [[String: Any]] else { return nil }
            for row in rows {
                guard let team = row["team"] as? [String: Any] else { continue }
                guard let id = (team["id"] as? NSNumber)?.int64Value, let wins = (team["wins"] as? NSNumber)?.intValue else { return nil }
                placed.append(Placed(id: id, wins: wins))
            }
        }
        return placed
    }

    /// The rows of a `snapshot` event's board (its `data`); nil when it is not such JSON.
    static func rows(inSnapshot data: String) -> [Placed]? {
        guard let board = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any],
              let sections = board["sections"] as? [[String: Any]] else { return nil }
        var rows: [Placed] = []
        for section in sections {
            for row in section["rows"] as? [[String: Any]] ?? [] {
                guard let id = (row["id"] as? NSNumber)?.int64Value, let wins = (row["wins"] as? NSNumber)?.intValue else { return nil }
                rows.append(Placed(id: id, wins: wins))
            }
        }
        return rows
    }
}
