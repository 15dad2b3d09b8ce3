// @ts-check
// What the server sends the game page, the home page's lobby and the
// analysis board, as JSDoc types: the JSON that the server's wire types
// (src/api.rs, the lobby's state) write with serde (docs/API.md). Types
// only: no page imports this module at run time (the others name its types
// with `import('./wire.js')`, which the browser never loads).
//
// They are exact, field for field: a field the server leaves out when it
// is empty (`skip_serializing_if`) is optional here, every other is
// required. tests/js_types.rs plays games on a real server and checks every
// message it captures against these types with tsc (excess property checks
// on object literals), so a field renamed, added or dropped on the server
// fails that test until this file follows. A new message or field: its
// typedef here, and a message that carries it in that test (which demands
// that every field named here come in some message).

export {};

/**
 * A player: `A` moves first.
 * @typedef {'A'|'B'} Player
 */

/**
 * The seat a browser holds: one player, or both on one device.
 * @typedef {'A'|'B'|'both'} Seat
 */

/**
 * How a game is played: against the server's AI, against a friend who
 * opens the invitation, or two people on one device.
 * @typedef {'ai'|'friend'|'local'} Mode
 */

/**
 * `waiting` (a friend game whose friend has not come), `playing`, `over`.
 * @typedef {'waiting'|'playing'|'over'} Status
 */

/**
 * One value per player.
 * @template T
 * @typedef {{A: T, B: T}} PerPlayer
 */

/**
 * One action of the log. `captured`: the holes it captured, in the order
 * taken; `position`: the GPN after it (before the final sweep for the
 * action that ends the game); `path`: for a sowing, the hole each seed fell
 * into (empty for an offer, an answer, a pass).
 * @typedef {{
 *   ply: number,
 *   player: Player,
 *   action: string,
 *   captured: string[],
 *   position: string,
 *   path: string[],
 * }} Entry
 */

/**
 * How a rated game moved a player's rating: his rating after it, as shown
 * (`1662?`), and the change (`162`, `-162`).
 * @typedef {{after: string, change: number}} RatingChange
 */

/**
 * A person in a seat. `joined` is false only for the friend's seat of a
 * waiting game; `name` is absent for a bot without a session and on one
 * device; `rating` (`1500?`, when the game began) and `rating_change`
 * (`null` until the game is over and rated) only in rated games; `bot`:
 * a BOT account, playing through the Bot API.
 * @typedef {{kind: 'human', joined: boolean, name?: string, rating?: string, rating_change?: RatingChange|null, bot: boolean}} HumanSeat
 */

/**
 * The server's AI in a seat; `perfect` only when true (the solver's
 * perfect player).
 * @typedef {{kind: 'ai', level: number, perfect?: boolean, honourable: boolean, joined: boolean}} AiSeat
 */

/**
 * Who sits in one seat.
 * @typedef {HumanSeat|AiSeat} SeatView
 */

/**
 * What one legal sowing would do, drawn before the click.
 * @typedef {{action: string, path: string[], captured: string[], seeds: number}} Preview
 */

/**
 * Why a game ended: the board (`board`, `no-hole`, `repetition`,
 * `ply-cap`), a resignation, the loser's clock, the loser gone (`left`), or
 * an abort (no winner, it counts for nobody).
 * @typedef {'board'|'no-hole'|'repetition'|'ply-cap'|'resign'|'time'|'left'|'abort'} Reason
 */

/**
 * A finished game's result: seeds of A and B (the sweep included), the
 * winner (`null`: a draw), and the seeds each took in the final sweep.
 * @typedef {{
 *   seeds: [number, number],
 *   winner: Player|null,
 *   without_glory: boolean,
 *   reason: Reason,
 *   swept: [number, number],
 * }} ResultView
 */

/**
 * The rematch of a game, once asked for.
 * @typedef {{id: string, url: string}} RematchView
 */

/**
 * A timed game's clocks as the server computed them at `now` (Unix ms):
 * `control` is `5+3` or `3d`; `left` the ms each player has; `running`
 * whose clock runs; `deadline_in` (ms) and `due` say what happens when the
 * player to act runs out (absent when nothing is due).
 * @typedef {{
 *   control: string,
 *   left: PerPlayer<number>,
 *   running: Player|null,
 *   deadline_in?: number,
 *   due?: 'flag'|'abort',
 *   now: number,
 * }} ClockView
 */

/**
 * What changes with each action: everything of a state but the game's
 * fixed facts and its log. `lobby` and `rated` are sent only when true,
 * `clock` only in timed games; `away` is how long (ms) each player of a
 * game between people has had no socket (`null`: connected). `berserk`:
 * who went berserk, `berserkable`: who still may (an arena's game; never
 * in other games).
 * @typedef {{
 *   status: Status,
 *   position: string,
 *   to_move: Player|null,
 *   seats: PerPlayer<SeatView>,
 *   legal: string[],
 *   ply: number,
 *   declined: PerPlayer<boolean>,
 *   result: ResultView|null,
 *   rematch: RematchView|null,
 *   lobby?: boolean,
 *   rated?: boolean,
 *   thinking: boolean,
 *   previews: Preview[],
 *   takeback: Player|null,
 *   clock?: ClockView,
 *   abortable: boolean,
 *   away: PerPlayer<number|null>,
 *   berserk: PerPlayer<boolean>,
 *   berserkable: PerPlayer<boolean>,
 * }} Head
 */

/**
 * A game's whole state (`GET /api/games/{id}`, the answers of the game's
 * commands, the socket's `state`), as its recipient sees it (`you`: his
 * seat, `null` for a spectator).
 * @typedef {Head & {
 *   id: string,
 *   mode: Mode,
 *   rules: string,
 *   start: string,
 *   you: Seat|null,
 *   actions: Entry[],
 *   takebacks: number,
 * }} GameState
 */

/**
 * What changed since the state a socket has: the actions after its ply
 * `since`, and the new head.
 * @typedef {Head & {id: string, since: number, actions: Entry[]}} Update
 */

/**
 * An error: its code (`stale`, `not_found`, …) and a sentence.
 * @typedef {{code: string, message: string, reason?: string, params?: Record<string, string|number>}} WireError
 */

/**
 * The body of every error answer.
 * @typedef {{error: WireError}} ErrorAnswer
 */

/**
 * A chat message of a game between people.
 * @typedef {{n: number, from: Player, text: string, at: number}} ChatLine
 */

/**
 * A message of a game's socket.
 * @typedef {{type: 'state', state: GameState}
 *   | {type: 'update', update: Update}
 *   | {type: 'error', error: WireError}
 *   | {type: 'pong'}
 *   | {type: 'chat_history', lines: ChatLine[]}
 *   | {type: 'chat', line: ChatLine}} ServerMsg
 */

/**
 * The answer to a game's creation, a rematch, or a claimed link: the seat
 * it gives and its token; `invite`, the friend's link, for the creator of
 * a friend game.
 * @typedef {{id: string, seat: Seat, token: string, url: string, invite?: string}} Created
 */

/**
 * A link that opens the caller's seat on another device.
 * @typedef {{url: string}} DeviceLink
 */

// ----- the lobby's socket (the home page) -----

/**
 * An open challenge (or a quick pairing's seek, `quick`): its creator's
 * public id and name, its terms (`clock` `null`: untimed; `colour`, the
 * creator's, `null`: random), and his rating in its pace when rated.
 * @typedef {{
 *   id: string,
 *   by: string,
 *   name: string,
 *   rules: string,
 *   clock: string|null,
 *   colour: Player|null,
 *   rated: boolean,
 *   quick: boolean,
 *   rating?: string,
 * }} Challenge
 */

/**
 * A game between people being played: A's and B's names and ratings (when
 * it began, rated games), whether each is a BOT, and its spectators on
 * every server.
 * @typedef {{
 *   id: string,
 *   url: string,
 *   names: [string|null, string|null],
 *   clock: string|null,
 *   rules: string,
 *   ratings: [string|null, string|null],
 *   bots: [boolean, boolean],
 *   spectators: number,
 * }} Playing
 */

/**
 * The lobby's state: the paces of quick pairing, the open challenges
 * (newest first), the games being played.
 * @typedef {{paces: string[], challenges: Challenge[], games: Playing[]}} LobbyState
 */

/**
 * A message of the lobby's socket: who the socket's player is (`hello`,
 * first), the lobby's state (after each change), his seek or challenge
 * waiting, his game once paired, his seeks withdrawn, a refusal, a pong.
 * @typedef {{type: 'hello', you: string, name: string}
 *   | ({type: 'lobby'} & LobbyState)
 *   | {type: 'waiting', id: string}
 *   | {type: 'paired', game: string, url: string}
 *   | {type: 'cancelled'}
 *   | {type: 'error', error: WireError}
 *   | {type: 'pong'}} LobbyMsg
 */

// ----- the analysis board (/analysis) -----

/**
 * Final seeds of A and B (halves where the board's seeds are split).
 * @typedef {[number, number]} Seeds
 */

/**
 * How a game set up for analysis ended.
 * @typedef {{seeds: [number, number], reason: 'board'|'no-hole'|'repetition'|'ply-cap'}} AnalysisOver
 */

/**
 * The answer to `POST /api/analysis/position`: the setup as the rules
 * judge it (`positions`: the GPN after each action of the line).
 * @typedef {{
 *   rules: string,
 *   start: string,
 *   gpn: string,
 *   positions: string[],
 *   to_move: Player,
 *   legal: string[],
 *   over: AnalysisOver|null,
 *   repetitions: number,
 *   on_board: number,
 * }} AnalysisPosition
 */

/**
 * The solved database's values, as final seeds: the stored value, the
 * mover's lower and upper bounds, and whether they meet.
 * @typedef {{v: Seeds, lo: Seeds, hi: Seeds, exact: boolean}} ExactView
 */

/**
 * A message of the analysis socket; each of an analysis carries its `id`.
 * @typedef {{type: 'started', id: number, gpn: string, limits: {time_ms: number, nodes: number, depth: number}}
 *   | {type: 'queued', id: number, place: number}
 *   | {type: 'exact', id: number, position: ExactView, actions: Array<{action: string} & ExactView>}
 *   | {type: 'depth', id: number, depth: number, expected: Seeds, line: string[], nodes: number, time_ms: number}
 *   | {type: 'action', id: number, action: string, expected: Seeds, depth: number, line: string[], ends: boolean}
 *   | {type: 'done', id: number, depth: number, best: string|null, nodes: number, time_ms: number, stopped: boolean, over: AnalysisOver|null}
 *   | {type: 'error', error: WireError}
 *   | {type: 'pong'}} AnalysisMsg
 */

// ----- the home page -----

/**
 * The answer to `GET /api/solver`: the rule sets whose ai games may have
 * the perfect player (empty without a solver database).
 * @typedef {{perfect: string[]}} Solver
 */
