ALTER TABLE games ADD COLUMN arena TEXT;
            ALTER TABLE games ADD COLUMN berserk_a {bool} NOT NULL DEFAULT {false};
            ALTER TABLE games ADD COLUMN berserk_b {bool} NOT NULL DEFAULT {false}