CREATE TABLE analysis_jobs (
                id          TEXT PRIMARY KEY,
                origin      TEXT NOT NULL,
                client      TEXT NOT NULL,
                label       {int8} NOT NULL,
                rules       TEXT NOT NULL,
                gpn         TEXT NOT NULL,
                line        TEXT NOT NULL,
                time_ms     {int8} NOT NULL,
                nodes       {int8} NOT NULL,
                status      TEXT NOT NULL CHECK (status IN ('waiting', 'running')),
                stop        {bool} NOT NULL DEFAULT {false},
                server      TEXT,
                until_ms    {int8},
                created_at  {int8} NOT NULL
            );
            CREATE INDEX analysis_jobs_created ON analysis_jobs (created_at);
            CREATE TABLE analysis_batches (
                job         TEXT NOT NULL,
                seq         {int8} NOT NULL,
                origin      TEXT NOT NULL,
                body        TEXT NOT NULL,
                last        {bool} NOT NULL,
                PRIMARY KEY (job, seq)
            );
            CREATE INDEX analysis_batches_origin ON analysis_batches (origin)
