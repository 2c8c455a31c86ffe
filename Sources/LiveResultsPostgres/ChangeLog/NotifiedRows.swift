import LiveResults

extension PostgresKeyQuery.Statements {
    /// The rows `commit` changed, each with its key after it (nil: gone), as a log read would
    /// find them right after that commit; nil when the notification cannot tell them: it is
    /// cut, of another table, lacks a column the key needs, or the key needs what its text
    /// cannot say exactly (a predicate, which only the server evaluates; a real, whose text
    /// depends on the writer's `extra_float_digits`; bytea, on its `bytea_output`).
    func rows(from commit: NotifiedCommit) -> [(id: RecordID, key: RowKey?)]? {
        guard !commit.isCut, commit.table == query.tableName, query.predicate == nil else { return nil }
        let keyColumns = query.sortDescriptors.map(\.column) + (query.sectionColumn.map { [$0] } ?? [])
        guard keyTypes.count == keyColumns.count else { return nil }
        var places: [Int] = []
        for column in keyColumns {
            guard let place = commit.columns.firstIndex(of: column) else { return nil }
            places.append(place)
        }
        // The last entry of a row is the row as the transaction left it.
        var order: [RecordID] = []
        var last: [RecordID: [String?]?] = [:]
        for entry in commit.entries {
            if last.updateValue(entry.values, forKey: entry.id) == nil { order.append(entry.id) }
        }
        var rows: [(id: RecordID, key: RowKey?)] = []
        rows.reserveCapacity(order.count)
        for id in order {
            guard let values = last[id] ?? nil else {
                rows.append((id, nil))
                continue
            }
            var key: [ColumnValue] = []
            for (place, type) in zip(places, keyTypes) {
                guard let value = Self.value(values[place], type: type) else { return nil }
                key.append(value)
            }
            let section = query.sectionColumn == nil ? ColumnValue.null : key.removeLast()
            rows.append((id, RowKey(section: section, sort: key)))
        }
        return rows
    }

    /// The rows of `ids` whole, as `commit` left them, where it carries every column of a
    /// record and each in a text that reads exactly (`recordCells`): what the controller keeps
    /// instead of reading them again. A row it cannot say is left out (read when drawn).
    func records(from commit: NotifiedCommit, ids: [RecordID]) -> [RecordID: RecordColumns] {
        guard !commit.isCut, commit.table == query.tableName, !recordCells.isEmpty else { return [:] }
        var places: [Int] = []
        for cell in recordCells {
            guard let place = commit.columns.firstIndex(of: cell.name) else { return [:] }
            places.append(place)
        }
        let wanted = Set(ids)
        var last: [RecordID: [String?]] = [:]
        for entry in commit.entries where wanted.contains(entry.id) { last[entry.id] = entry.values }
        var records: [RecordID: RecordColumns] = [:]
        rows: for (id, values) in last {
            var columns = RecordColumns(minimumCapacity: recordCells.count)
            for (cell, place) in zip(recordCells, places) {
                guard let type = cell.type else {
                    columns[cell.name] = values[place].map { $0.columnValue } ?? .null
                    continue
                }
                guard let value = Self.value(values[place], type: type) else { continue rows }
                columns[cell.name] = value
            }
            records[id] = columns
        }
        return records
    }

    /// A value's text form (`::text`) as the key query reads the value; nil for a type whose
    /// text is not exact, or text that does not read as its type.
    private static func value(_ text: String?, type: String) -> ColumnValue? {
        guard let text else { return .null }
        switch type {
        case "int2", "int4", "int8": return Int64(text)?.columnValue
        case "bool":
            switch text {
            case "true", "t": return 1.columnValue
            case "false", "f": return 0.columnValue
            default: return nil
            }
        case "text", "varchar": return text.columnValue
        default: return nil
        }
    }
}
