import LiveResults

/// Where a notification's columns hold what a key query needs: the places of its key columns
/// (sort columns, then the section's) and of a record's cells. A table's notifications all
/// carry the same columns, so a feed works these out once, not once a notification.
struct NotifiedColumns {
    /// The notification's columns these places are of.
    let columns: [String]
    /// nil: a key column is missing, or one has a type whose text is not exact.
    let key: [Int]?
    /// nil: the query keeps no records, or a record's column is missing.
    let record: [Int]?
}

extension PostgresKeyQuery.Statements {
    /// Where `columns` (a notification's) hold the key and a record's cells.
    func places(of columns: [String]) -> NotifiedColumns {
        let keyColumns = query.sortDescriptors.map(\.column) + (query.sectionColumn.map { [$0] } ?? [])
        func places(_ names: [String]) -> [Int]? {
            var places: [Int] = []
            places.reserveCapacity(names.count)
            for name in names {
                guard let place = columns.firstIndex(of: name) else { return nil }
                places.append(place)
            }
            return places
        }
        let key = keyTypes.count == keyColumns.count ? places(keyColumns) : nil
        return NotifiedColumns(columns: columns, key: key, record: recordCells.isEmpty ? nil : places(recordCells.map { $0.name }))
    }

    /// The rows `commit` changed, each with its key after it (nil: gone), as a log read would
    /// find them right after that commit; nil when the notification cannot tell them: it is
    /// cut, of another table, lacks a column the key needs, or the key needs what its text
    /// cannot say exactly (a predicate, which only the server evaluates; a real, whose text
    /// depends on the writer's `extra_float_digits`; bytea, on its `bytea_output`).
    /// `places`: `places(of: commit.columns)`.
    func rows(from commit: NotifiedCommit, places: NotifiedColumns) -> [(id: RecordID, key: RowKey?)]? {
        guard !commit.isCut, commit.table == query.tableName, query.predicate == nil, let keyPlaces = places.key else { return nil }
        var rows: [(id: RecordID, key: RowKey?)] = []
        rows.reserveCapacity(commit.entries.count)
        for (id, values) in Self.lastEntries(of: commit) {
            guard let values else {
                rows.append((id, nil))
                continue
            }
            var key: [ColumnValue] = []
            key.reserveCapacity(keyPlaces.count)
            for (place, type) in zip(keyPlaces, keyTypes) {
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
    /// `places`: `places(of: commit.columns)`.
    func records(from commit: NotifiedCommit, ids: [RecordID], places: NotifiedColumns) -> [RecordID: RecordColumns] {
        guard !commit.isCut, commit.table == query.tableName, let recordPlaces = places.record else { return [:] }
        // Most commits name one row once: no set of the ids is needed then.
        let wanted: Set<RecordID>? = commit.entries.count == 1 ? nil : Set(ids)
        var records: [RecordID: RecordColumns] = [:]
        rows: for (id, values) in Self.lastEntries(of: commit) {
            guard let values, wanted?.contains(id) ?? (ids.first == id) else { continue }
            var columns = RecordColumns(minimumCapacity: recordCells.count)
            for (cell, place) in zip(recordCells, recordPlaces) {
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

    /// Each row `commit` names, once, in the order first named, with the values of its last
    /// entry (the row as the transaction left it; nil: gone).
    private static func lastEntries(of commit: NotifiedCommit) -> [(id: RecordID, values: [String?]?)] {
        // Most commits name one row once: no dictionary is needed then.
        if commit.entries.count == 1, let entry = commit.entries.first { return [(entry.id, entry.values)] }
        var order: [RecordID] = []
        var last: [RecordID: [String?]?] = [:]
        for entry in commit.entries {
            if last.updateValue(entry.values, forKey: entry.id) == nil { order.append(entry.id) }
        }
        return order.map { ($0, last[$0] ?? nil) }
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
