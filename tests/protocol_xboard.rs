//! `shogi-zero xboard` driven over pipes with a tiny random chu shogi checkpoint: features,
//! moves both ways in XBoard's notation (lion moves in two legs), force mode, setboard, results,
//! time controls, `?` and `ping`, malformed commands, `quit`.

mod protocol_support;

use std::time::{Duration, Instant};

use protocol_support::{random_lines, serial, tiny_checkpoint, Process};
use shogi_zero::rules::notation::{sfen, xboard};
use shogi_zero::rules::{Game, GameRules, Position, VariantId};

const LONG: Duration = Duration::from_secs(60);
const CHU: VariantId = VariantId::CHU_SHOGI;

fn start(extra: &[&str]) -> Process {
    let model = tiny_checkpoint(CHU).display().to_string();
    let mut args = vec!["xboard", "--variant", "chu", "--model", &model];
    args.extend_from_slice(extra);
    let mut engine = Process::start(&args, None);
    engine.send("xboard");
    engine.send("protover 2");
    engine.expect("feature done=0", LONG);
    let features = engine.read_until(LONG, |l| l.ends_with(" done=1")).join("\n");
    for part in [
        "ping=1",
        "setboard=1",
        "usermove=1",
        "san=0",
        "sigint=0",
        "sigterm=0",
        "myname=\"shogi-zero ",
        "variants=\"chu",
        "option=\"CaptureUtility -spin ",
        "done=1",
    ] {
        assert!(features.contains(part), "{part}: {features}");
    }
    engine
}

fn chu_game(sfen_text: Option<&str>) -> Game {
    let v = CHU.variant();
    let start = sfen_text.map_or_else(|| Position::start(CHU), |t| sfen::parse(v, t).unwrap());
    Game::new(start, GameRules::default_for(v))
}

/// Reads the engine's next move (the legs of a two-leg move joined), checks it is legal in
/// `game` and plays it there.
fn engine_move(engine: &mut Process, game: &mut Game) -> String {
    let mut text = String::new();
    loop {
        let line = engine.expect("move ", LONG);
        text.push_str(&line["move ".len()..]);
        if !text.ends_with(',') {
            break;
        }
    }
    let mv = xboard::parse(game.position(), &text).unwrap_or_else(|e| panic!("engine move '{text}': {e}"));
    game.play(mv).unwrap();
    text
}

/// Sends `ping n` and returns every line before the `pong n`.
fn sync(engine: &mut Process, n: u32) -> Vec<String> {
    engine.send(&format!("ping {n}"));
    let mut lines = engine.read_until(LONG, |l| l == format!("pong {n}"));
    lines.pop();
    lines
}

#[test]
fn the_engine_answers_moves_as_the_second_player() {
    let _serial = serial();
    let mut engine = start(&["--sims", "20"]);
    let mut game = chu_game(None);
    engine.send("new");
    engine.send("variant chu");
    assert_eq!(sync(&mut engine, 1), Vec::<String>::new());
    for user in ["f4f5", "e4e5"] {
        engine.send(&format!("usermove {user}"));
        game.play(xboard::parse(game.position(), user).unwrap()).unwrap();
        engine_move(&mut engine, &mut game);
    }
    // A bare move works as well as usermove.
    let reply = game.legal_moves()[0];
    let text = xboard::write(CHU.variant(), reply);
    engine.send(&text);
    game.play(reply).unwrap();
    engine_move(&mut engine, &mut game);
    engine.send("quit");
    assert!(engine.wait(LONG).success());
    assert!(!engine.stderr().contains("panicked"));
}

#[test]
fn force_mode_and_malformed_commands() {
    let _serial = serial();
    let mut engine = start(&["--sims", "20"]);
    engine.send("new");
    engine.send("force");
    engine.send("usermove f4f5");
    engine.send("usermove f4f5");
    engine.send("g9g8");
    engine.send("hello there");
    engine.send("usermove");
    engine.send("usermove f4f5,f5f6,f6f7");
    engine.send("level 40 five 0");
    engine.send("time soon");
    engine.send("st -1");
    engine.send("variant normal");
    engine.send("sd 4");
    engine.send("option Bogus=1");
    engine.send("option CaptureUtility=10001");
    engine.send_bytes(b"\xff\xfe\n");
    let lines = sync(&mut engine, 2);
    assert_eq!(
        lines,
        [
            "Illegal move: f4f5",
            "Error (unknown command): hello there",
            "Illegal move: ",
            "Illegal move: f4f5,f5f6,f6f7",
            "Error (bad parameters): level 40 five 0",
            "Error (bad parameters): time soon",
            "Error (bad parameters): st -1",
            "Error (unsupported variant): variant normal",
            "Error (unknown option): Bogus=1",
            "Error (CaptureUtility takes 0 to 10000): CaptureUtility=10001",
            "Error (unknown command): \u{fffd}\u{fffd}",
        ]
    );
    // Absurd clocks are taken without complaint (the simulation cap ends the searches below).
    engine.send("level 0 1 1000000000000000000");
    engine.send("time 18446744073709551615");
    assert_eq!(sync(&mut engine, 9), Vec::<String>::new());
    // Take back White's move; the engine plays Black's side from there, and takes it back too.
    engine.send("undo");
    engine.send("go");
    let mut game = chu_game(None);
    game.play(xboard::parse(game.position(), "f4f5").unwrap()).unwrap();
    engine_move(&mut engine, &mut game);
    engine.send("remove");
    engine.send("force");
    assert_eq!(sync(&mut engine, 3), Vec::<String>::new());
    // A new game, where the engine moves first on 'go'.
    engine.send("new");
    engine.send("go");
    engine_move(&mut engine, &mut chu_game(None));
    engine.close_input();
    assert!(engine.wait(LONG).success());
    assert!(engine.stderr().contains("no depth limit"), "{}", engine.stderr());
}

#[test]
fn setboard_lion_moves_and_results() {
    let _serial = serial();
    let mut engine = start(&["--sims", "20"]);
    engine.send("new");
    engine.send("force");
    // Black's lion on 6f (g7) with White pawns on 6e (g8) and 6d (g9).
    let lions = "k11/12/12/6p5/6p5/6(Ln)5/12/12/12/12/12/11K b - 1";
    engine.send(&format!("setboard {lions}"));
    engine.send("usermove g7g8,g8g7");
    assert_eq!(sync(&mut engine, 1), Vec::<String>::new(), "igui refused");
    let mut game = chu_game(Some(lions));
    game.play(xboard::parse(game.position(), "g7g8,g8g7").unwrap()).unwrap();
    engine.send("go");
    engine_move(&mut engine, &mut game);
    engine.send("force");
    // Black's rook takes White's only royal: the engine announces the result.
    let capture = "6k5/12/6R5/11p/12/12/12/12/12/12/12/5K6 b - 1";
    engine.send(&format!("setboard {capture}"));
    engine.send("usermove g10g12");
    assert_eq!(sync(&mut engine, 2), ["1-0 {Black wins (royal captured)}"]);
    engine.send("usermove a1a2");
    assert_eq!(sync(&mut engine, 3), ["Illegal move (the game is over): a1a2"]);
    engine.send("result 1-0 {Black wins}");
    engine.send("setboard not a position");
    engine.send("usermove f4f5");
    let lines = sync(&mut engine, 4);
    assert!(lines[0].starts_with("tellusererror Illegal position: "), "{lines:?}");
    assert_eq!(lines[1], "Illegal move (no valid position): f4f5");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

/// The CaptureUtility option weighs in what a line wins by captures. With a rook free to take
/// (and Black's own rook lost if it does not; the kings walled in by golds, out of the
/// rooks' reach in a few moves), a search at 100 takes it and reports it winning; at 0, the
/// material guard and the pursuit utility turned off on the command line, the tiny random
/// network's own search sees nothing of it. The option's default is `--capture-utility`'s.
#[test]
fn the_capture_utility_option_weighs_what_captures_win() {
    let _serial = serial();
    let mut engine = start(&["--sims", "300", "--capture-utility", "0.5", "--material-guard", "off", "--pursuit-utility", "0"]);
    engine.send("protover 2");
    let features = engine.read_until(LONG, |l| l.ends_with(" done=1"));
    assert!(features.contains(&"feature option=\"CaptureUtility -spin 50 0 10000\"".to_string()), "{features:?}");
    let rooks = "kg10/gg10/12/12/6r5/12/12/6R5/12/12/10GG/10GK b - 1";
    let mut search = |utility: u32| -> (i64, String) {
        engine.send("force");
        engine.send(&format!("setboard {rooks}"));
        engine.send(&format!("option CaptureUtility={utility}"));
        engine.send("post");
        engine.send("go");
        let lines = engine.read_until(LONG, |l| l.starts_with("move "));
        let thinking = &lines[lines.len() - 2];
        assert!(is_thinking_line(thinking), "{lines:?}");
        let score = thinking.split_whitespace().nth(1).unwrap().parse().unwrap();
        (score, lines.last().unwrap()["move ".len()..].to_string())
    };
    let (weighed, best) = search(10_000);
    assert_eq!(best, "g5g8");
    let (own, _) = search(0);
    assert!(weighed > 600 && own.abs() < 200, "at 100: {weighed} cp, at 0: {own} cp");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

#[test]
fn clocks_move_now_pings_and_thinking_output() {
    let _serial = serial();
    let mut engine = start(&[]);
    let mut game = chu_game(None);
    engine.send("new");
    engine.send("post");
    // 40 moves in 40 seconds: about one second for this move.
    engine.send("level 40 0:40 0");
    engine.send("time 4000");
    engine.send("otim 4000");
    let started = Instant::now();
    engine.send("usermove f4f5");
    engine.send("ping 7");
    game.play(xboard::parse(game.position(), "f4f5").unwrap()).unwrap();
    let lines = engine.read_until(LONG, |l| l == "pong 7");
    let took = started.elapsed();
    assert!(took > Duration::from_millis(500) && took < Duration::from_millis(2500), "took {took:?}");
    let moves: Vec<&String> = lines.iter().filter(|l| l.starts_with("move ")).collect();
    assert_eq!(moves.len(), 1, "the pong comes after the move: {lines:?}");
    let text = &moves[0]["move ".len()..];
    game.play(xboard::parse(game.position(), text).unwrap()).unwrap();
    let thinking = lines.iter().filter(|l| !l.starts_with("move ") && !l.starts_with("pong")).collect::<Vec<_>>();
    assert!(!thinking.is_empty(), "{lines:?}");
    for line in thinking {
        assert!(is_thinking_line(line), "thinking output '{line}'");
    }
    // A long fixed time per move, cut short by '?'.
    engine.send("nopost");
    engine.send("st 30");
    engine.send("usermove e4e5");
    game.play(xboard::parse(game.position(), "e4e5").unwrap()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let now = Instant::now();
    engine.send("?");
    engine_move(&mut engine, &mut game);
    assert!(now.elapsed() < Duration::from_secs(2), "'?' took {:?}", now.elapsed());
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

#[test]
fn random_command_lines_never_crash_the_engine() {
    let _serial = serial();
    let mut engine = start(&["--sims", "30"]);
    let words = [
        "new",
        "variant",
        "chu",
        "dai",
        "force",
        "go",
        "usermove",
        "setboard",
        "level",
        "st",
        "sd",
        "time",
        "otim",
        "ping",
        "post",
        "nopost",
        "undo",
        "remove",
        "result",
        "?",
        "hard",
        "easy",
        "draw",
        "f4f5",
        "e4e5",
        "g9g8",
        "g7g8,g8g7",
        "@@@@",
        "h8h9+",
        "1-0",
        "{x}",
        "0",
        "1",
        "40",
        "0:30",
        "-5",
        "1e30",
        "99999999999999999999",
        "k11/12/12/6p5/6p5/6(Ln)5/12/12/12/12/12/11K",
        "b",
        "w",
        "-",
        "x",
        "é",
        "",
    ];
    for line in random_lines(&words, 300, 5) {
        engine.send(&line);
    }
    engine.send("force");
    sync(&mut engine, 999);
    engine.send("quit");
    assert!(engine.wait(LONG).success());
    assert!(!engine.stderr().contains("panicked"), "{}", engine.stderr());
    assert!(engine.transcript.iter().all(|l| is_protocol_line(l)), "{:?}", engine.transcript);
    assert!(engine.transcript.iter().any(|l| l.starts_with("Illegal move")), "{:?}", engine.transcript);
    assert!(engine.transcript.iter().any(|l| l.starts_with("Error (")), "{:?}", engine.transcript);
}

/// Every line the engine may write: features, moves, answers, errors, results, thinking output.
fn is_protocol_line(line: &str) -> bool {
    let known = ["feature ", "move ", "pong ", "Illegal move", "Error (", "tellusererror ", "resign", "1-0 ", "0-1 ", "1/2-1/2 "];
    known.iter().any(|prefix| line.starts_with(prefix)) || is_thinking_line(line)
}

/// A thinking-output line: depth, score, time, nodes, then the principal variation.
fn is_thinking_line(line: &str) -> bool {
    let fields: Vec<&str> = line.split_whitespace().collect();
    fields.len() >= 5 && fields[..4].iter().all(|f| f.parse::<i64>().is_ok())
}

#[test]
fn command_line_errors() {
    let _serial = serial();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(["xboard", "--variant", "shogi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shogi-zero usi"));
    let mut engine = Process::start(&["xboard", "--variant", "dai", "--model", "/nonexistent/model"], None);
    engine.send("protover 2");
    let line = engine.expect("tellusererror", LONG);
    assert!(line.contains("cannot load the model") && line.contains("/nonexistent/model"), "{line}");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}
