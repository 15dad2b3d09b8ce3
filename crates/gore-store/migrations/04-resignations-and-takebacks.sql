ALTER TABLE games ADD COLUMN resigned TEXT CHECK (resigned IN ('A', 'B'));
            ALTER TABLE games ADD COLUMN takebacks INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE games ADD COLUMN takeback_request TEXT
                CHECK (takeback_request IN ('A', 'B'))