package main

// gopherOptions are the gopher options (schemes/gopher).
var gopherOptions = []option{
	{long: "gopher-answer", arg: "TEXT",
		help: "answer to the next question of a Gopher+ +ASK form (repeat for each, in order); unanswered ones are asked on a terminal",
		set: func(c *config, v string) error {
			c.handlers.gopher.Answers = append(c.handlers.gopher.Answers, v)
			return nil
		}},
}
