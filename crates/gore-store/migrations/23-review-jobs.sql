CREATE TABLE review_jobs (
                id          TEXT PRIMARY KEY,
                record      TEXT NOT NULL,
                client      TEXT NOT NULL,
                status      TEXT NOT NULL
                    CHECK (status IN ('waiting', 'running', 'done', 'failed')),
                result      TEXT,
                server      TEXT,
                until_ms    {int8},
                created_at  {int8} NOT NULL
            );
            CREATE INDEX review_jobs_open ON review_jobs (created_at) WHERE status IN ('waiting', 'running')
