import ReveilleCore

/// The committed rings that a holiday calendar does not silence (`ScheduleState.heldAgainstHolidays`),
/// kept in the state: a restart in place (a reload of reveille.toml, a crash, a power cut) keeps
/// them, and `next`, the page and the commitment gate, which read the schedule from here, see them.
extension Store {
    static func addHeldRingMigration(_ migrations: inout Migrations) {
        migrations.add("v19: committed rings a holiday does not silence") { db in
            try db.execute(
                """
                CREATE TABLE "held_ring" ("alarmId" INTEGER NOT NULL REFERENCES "alarm"("id") ON DELETE CASCADE,
                  "date" TEXT NOT NULL, PRIMARY KEY ("alarmId", "date"));
                """)
        }
    }

    static func heldRings(_ db: SQLiteConnection) throws -> Set<HeldRing> {
        Set(
            try db.rows(#"SELECT "alarmId", "date" FROM held_ring"#).map {
                HeldRing(alarmID: try $0.int("alarmId"), date: try CivilDate.parse(try $0.text("date")))
            })
    }

    /// The holds as the machine now has them: those it no longer has (their day is over) go.
    public func setHeldRings(_ held: Set<HeldRing>) throws {
        try write { db in
            try db.execute(#"DELETE FROM held_ring"#)
            for ring in held.sorted(by: { ($0.date, $0.alarmID) < ($1.date, $1.alarmID) }) {
                // An alarm removed meanwhile has no holds.
                try db.execute(
                    #"INSERT INTO held_ring ("alarmId", "date") SELECT ?, ? WHERE EXISTS (SELECT 1 FROM alarm WHERE id = ?)"#,
                    ring.alarmID, ring.date.description, ring.alarmID)
            }
        }
    }
}
