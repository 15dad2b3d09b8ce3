ALTER TABLE tournaments ADD COLUMN creator_addr TEXT;
            ALTER TABLE tournaments ADD COLUMN creator_slot {int2};
            ALTER TABLE tournaments ADD COLUMN addr_slot {int2};
            CREATE UNIQUE INDEX tournaments_creator_slot ON tournaments (creator, creator_slot)
                WHERE finished = {false};
            CREATE UNIQUE INDEX tournaments_addr_slot ON tournaments (creator_addr, addr_slot)
                WHERE finished = {false}
