package referee

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	refereev1 "referee/clients/go/gen/referee/v1"
)

var (
	ranks = []string{"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
	suits = []string{"♣", "♦", "♥", "♠"}
)

// CardText is Q♥, 10♠.
func CardText(c *refereev1.Card) string {
	r, s := int(c.GetRank()), int(c.GetSuit())
	if r < 1 || r > 13 || s < 1 || s > 4 {
		return "?"
	}
	return ranks[r-1] + suits[s-1]
}

// caseOf is the set case of a message's first oneof, and its value when it is a message.
func caseOf(m protoreflect.Message) (string, protoreflect.Message) {
	oneofs := m.Descriptor().Oneofs()
	if oneofs.Len() == 0 {
		return "", nil
	}
	fd := m.WhichOneof(oneofs.Get(0))
	if fd == nil {
		return "", nil
	}
	if fd.Message() != nil {
		return string(fd.Name()), m.Get(fd).Message()
	}
	return string(fd.Name()), nil
}

// ActionKind is the game action's case for any game: play, pass, next_round, end_session...
func ActionKind(a *refereev1.Action) string {
	game, inner := caseOf(a.ProtoReflect())
	if inner == nil {
		return game
	}
	if kind, _ := caseOf(inner); kind != "" {
		return kind
	}
	return game
}

// ActorText is "seat 2", "the table".
func ActorText(a *refereev1.Actor) string {
	switch k := a.GetKind().(type) {
	case *refereev1.Actor_Seat:
		return fmt.Sprintf("seat %d", k.Seat)
	case *refereev1.Actor_Spectator:
		return fmt.Sprintf("spectator %q", k.Spectator)
	case *refereev1.Actor_Table:
		return "the table"
	}
	return "nobody"
}

func compactJSON(m protoreflect.ProtoMessage) string {
	b, err := protojson.MarshalOptions{}.Marshal(m)
	if err != nil {
		return err.Error()
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// ActionText describes an action of any game.
func ActionText(a *refereev1.Action) string {
	if play := a.GetEarlOfCoventry().GetPlay(); play != nil {
		return fmt.Sprintf("play %s saying %q", CardText(play.GetCard()), play.GetCall())
	}
	if play := a.GetEcarte().GetPlay(); play != nil {
		return "play " + CardText(play.GetCard())
	}
	if discard := a.GetEcarte().GetDiscard(); discard != nil {
		return "discard " + cardsText(discard.GetCards())
	}
	_, inner := caseOf(a.ProtoReflect())
	if inner == nil {
		return "(no action)"
	}
	return ActionKind(a) + " " + compactJSON(inner.Interface())
}

// EventText describes an event of any game.
func EventText(e *refereev1.Event) string {
	if earl := e.GetEarlOfCoventry(); earl != nil {
		switch k := earl.GetKind().(type) {
		case *refereev1.EarlOfCoventryEvent_CardPlayed:
			return fmt.Sprintf("seat %d plays %s: %q", k.CardPlayed.GetSeat(), CardText(k.CardPlayed.GetCard()), k.CardPlayed.GetCall())
		case *refereev1.EarlOfCoventryEvent_PassedOver:
			return fmt.Sprintf("seat %d passed over", k.PassedOver.GetSeat())
		case *refereev1.EarlOfCoventryEvent_RankCompleted:
			return fmt.Sprintf("rank complete: seat %d is the Earl", k.RankCompleted.GetSeat())
		case *refereev1.EarlOfCoventryEvent_RoundWon:
			return fmt.Sprintf("seat %d wins round %d", k.RoundWon.GetSeat(), k.RoundWon.GetRound()+1)
		case *refereev1.EarlOfCoventryEvent_SessionEnded:
			return fmt.Sprintf("session over: winners %v", k.SessionEnded.GetWinners())
		}
	}
	if ecarte := e.GetEcarte(); ecarte != nil {
		switch k := ecarte.GetKind().(type) {
		case *refereev1.EcarteEvent_CardPlayed:
			return fmt.Sprintf("seat %d plays %s", k.CardPlayed.GetSeat(), CardText(k.CardPlayed.GetCard()))
		case *refereev1.EcarteEvent_TrickWon:
			return fmt.Sprintf("seat %d wins trick %d: %s", k.TrickWon.GetSeat(), k.TrickWon.GetTrick()+1, cardsText(k.TrickWon.GetCards()))
		case *refereev1.EcarteEvent_PointsScored:
			return fmt.Sprintf("seat %d scores %d (total %d)", k.PointsScored.GetSeat(), k.PointsScored.GetPoints(), k.PointsScored.GetTotal())
		case *refereev1.EcarteEvent_GameWon:
			return fmt.Sprintf("seat %d wins game %d (points %v)", k.GameWon.GetSeat(), k.GameWon.GetGame()+1, k.GameWon.GetPoints())
		case *refereev1.EcarteEvent_MatchWon:
			return fmt.Sprintf("seat %d wins the match (games %v)", k.MatchWon.GetSeat(), k.MatchWon.GetGamesWon())
		}
	}
	return compactJSON(e)
}

func cardsText(cards []*refereev1.Card) string {
	texts := make([]string, len(cards))
	for i, c := range cards {
		texts[i] = CardText(c)
	}
	return strings.Join(texts, " ")
}

// ScoreboardText is one line of standings.
func ScoreboardText(b *refereev1.Scoreboard) string {
	var seats []string
	for _, s := range b.GetSeats() {
		parts := []string{fmt.Sprintf("seat %d", s.GetSeat())}
		if s.GetRoundsWon() > 0 {
			parts = append(parts, fmt.Sprintf("rounds won %d", s.GetRoundsWon()))
		}
		if s.GetGamesWon() > 0 {
			parts = append(parts, fmt.Sprintf("games won %d", s.GetGamesWon()))
		}
		if s.GetPoints() != 0 {
			parts = append(parts, fmt.Sprintf("points %d", s.GetPoints()))
		}
		if s.GetCounters() != 0 {
			parts = append(parts, fmt.Sprintf("counters %d", s.GetCounters()))
		}
		if s.GetChips() != 0 {
			parts = append(parts, fmt.Sprintf("chips %d", s.GetChips()))
		}
		parts = append(parts, fmt.Sprintf("cards in hand %d", s.GetCardsInHand()))
		seats = append(seats, strings.Join(parts, " "))
	}
	return fmt.Sprintf("%s; finished %v; winners %v", strings.Join(seats, "; "), b.GetFinished(), b.GetWinners())
}
