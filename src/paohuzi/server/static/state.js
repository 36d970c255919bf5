// The page's one state object: everything the screens remember between two events, in one
// place (each module imports `ui` and reads or sets its fields; nothing else is shared
// mutable). What the server sent is `ui.state`; the rest is the page's own.
export const ui = {
  // ---- the room and its connection (connection.js)
  /** The last state frame the server sent (null: none yet, or the waiting room). */
  state: null,
  socket: null,
  roomId: null,
  /** The seat's secret, from the invite's fragment (#token=…); null for a spectator. */
  token: null,
  /** Reconnections tried since the last success. */
  attempts: 0,
  /** Set once the server said why it closed (the page then shows the trouble, not the table). */
  stopped: false,
  /** The connection trouble shown (a message key), or null. */
  connNote: null,
  /** The server's database is slow to save: the moves are kept and shown once saved. */
  saving: false,
  /** The events of the hand so far on this connection (the server sends only the new ones). */
  sentEvents: null,
  toastTimer: null,

  // ---- the live table (table.js, hand.js, settlement.js)
  /** Your hand's columns as you arranged them (cards.js's `arrange`), and the hand they are of. */
  layout: [],
  layoutKey: null,
  /** The card of your hand picked once (a second tap discards it): {col, i, kind}. */
  selected: null,
  /** A card being dragged: {b, x, y, moved, id, ghost, off}. */
  drag: null,
  justDragged: false,
  /** The claim you last sent (吃, 碰, 胡) while its outcome is not yet seen: {kind, hand}. */
  claimed: null,
  /** Whether the list of 吃 choices is open. */
  chiOpen: false,
  /** The last 听牌 hint asked for (its key) and the answer. */
  hintKey: "",
  hint: null,
  /** When your decision's time runs out, and another person's discard's (performance.now()). */
  deadlineAt: null,
  othersAt: null,
  othersKey: "",
  lastTick: null,
  /** The hand whose settlement was opened, and the timer that opens it after the banner. */
  settleFor: null,
  settleTimer: null,
  /** Where the card you discarded left from (its flight starts there). */
  lastDiscardRect: null,
  /** Per seat of a room, the last timeout told (so each is told once). */
  toldTimeouts: {},
  /** The connection 托管 off was asked on (a touch of a card or a button): asked once on each,
   * until a state says 托管 is off. */
  takingBack: null,
  /** The deal's commitment as shown at the deal, per hand (checked at the settlement). */
  seenCommitments: {},
  /** The hand whose finished hands were listed last. */
  historyKey: "",
  /** The list asked for again (it failed, or lacked the hand just finished): when, how often. */
  historyTimer: 0,
  historyTries: 0,

  // ---- the replay board and the review (replay.js)
  replaying: false,
  /** The hand's frames (GET …/frames), the one shown, where they came from, and whose eyes. */
  frames: null,
  frameAt: 0,
  replayInfo: null,
  viewSeat: 0,
  /** The expert's review of a seat's decisions, as the server last answered. */
  review: null,
  reviewTimer: null,

  // ---- the waiting room and the lobby (lobby.js)
  /** The last waiting-room message (null: not waiting). */
  waiting: null,
  /** The host's open "new link?" question: {seat, busy, failed} (kept through the redraws
   * of the waiting room, a friend arriving), or null. */
  renewing: null,
  /** The bots this server offers (GET /api/bots); the built-ins until it answers. */
  botLevels: ["greedy", "learned", "expert", "random"],

  // ---- the hall (hall.js, issue 25)
  /** The visitor's player (GET /api/me), and the request that fetches it. */
  me: null,
  /** The answer of GET /api/me when it was refused (shown where the visitor's player is needed). */
  meRefused: null,
  mePromise: null,
  /** The player whose 屏蔽发言 / 拉黑 is open under their seat panel (null: none). */
  mannersOpen: null,
  /** The last quick-play status (GET /api/quick), and the timer of the next poll. */
  quick: null,
  quickTimer: null,
  /** The last GET /api/tables. */
  tables: null,
  /** The profile shown (GET /api/players/{id}), and the leaderboard's family and rows. */
  profile: null,
  board: null,

  // ---- the course (lesson.js, issue 27)
  /** The lessons (GET /api/lessons), and the lesson on the table: {data (GET /api/lessons/{id}),
   * at (the step shown), answered (its move made), say (the verdict shown), finished}. */
  course: null,
  lesson: null,
  // ---- the puzzles (puzzle.js, issue 27)
  /** The themes (GET /api/puzzles/themes), the list shown ({theme, ids}), and the puzzle on the
   * table: {data (its view), daily, ids (its theme's), answer (the server's verdict and
   * solution, once answered), busy (the answer on its way)}. */
  puzzleThemes: null,
  puzzleList: null,
  puzzle: null,
};
