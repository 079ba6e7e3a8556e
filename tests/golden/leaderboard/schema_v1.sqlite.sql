-- The leaderboard's schema version 1 (coordqa 0.x before the integrity fixes), as SQLAlchemy created it;
-- the migration test builds an old database from it.
CREATE TABLE datasets (
	id INTEGER NOT NULL, 
	fingerprint VARCHAR(64) NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	rows JSON NOT NULL, 
	added_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (fingerprint)
);

CREATE TABLE meta (
	"key" VARCHAR(64) NOT NULL, 
	value VARCHAR(200) NOT NULL, 
	PRIMARY KEY ("key")
);

CREATE TABLE tokens (
	id INTEGER NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	token_hash VARCHAR(64) NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (token_hash)
);

CREATE TABLE submissions (
	id INTEGER NOT NULL, 
	digest VARCHAR(64) NOT NULL, 
	track VARCHAR(32) NOT NULL, 
	display_name VARCHAR(200) NOT NULL, 
	provider VARCHAR(100) NOT NULL, 
	parameters FLOAT, 
	organisation VARCHAR(200), 
	link VARCHAR(500), 
	model_name VARCHAR(200) NOT NULL, 
	dataset_fingerprint VARCHAR(64), 
	coordqa_version VARCHAR(50) NOT NULL, 
	trials INTEGER NOT NULL, 
	metrics JSON NOT NULL, 
	reported JSON, 
	mismatches JSON NOT NULL, 
	bundle TEXT NOT NULL, 
	token_id INTEGER, 
	created_at DATETIME NOT NULL, 
	hidden BOOLEAN NOT NULL, 
	hidden_reason VARCHAR(500), 
	PRIMARY KEY (id), 
	UNIQUE (digest), 
	FOREIGN KEY(token_id) REFERENCES tokens (id)
);

CREATE INDEX ix_submissions_track ON submissions (track);

CREATE TABLE episodes (
	id INTEGER NOT NULL, 
	submission_id INTEGER NOT NULL, 
	"key" VARCHAR(500) NOT NULL, 
	game VARCHAR(50) NOT NULL, 
	layout VARCHAR(100) NOT NULL, 
	partner VARCHAR(200) NOT NULL, 
	pairing VARCHAR(10) NOT NULL, 
	position INTEGER NOT NULL, 
	seed INTEGER NOT NULL, 
	score FLOAT NOT NULL, 
	metrics JSON NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (submission_id, "key"), 
	FOREIGN KEY(submission_id) REFERENCES submissions (id)
);

CREATE INDEX ix_episodes_submission_id ON episodes (submission_id);

CREATE TABLE samples (
	id INTEGER NOT NULL, 
	submission_id INTEGER NOT NULL, 
	question_id VARCHAR(200) NOT NULL, 
	trial INTEGER NOT NULL, 
	scenario_id VARCHAR(200) NOT NULL, 
	game VARCHAR(50) NOT NULL, 
	question_type VARCHAR(10) NOT NULL, 
	status VARCHAR(20) NOT NULL, 
	correct BOOLEAN NOT NULL, 
	choice INTEGER, 
	text TEXT, 
	error TEXT, 
	PRIMARY KEY (id), 
	UNIQUE (submission_id, question_id, trial), 
	FOREIGN KEY(submission_id) REFERENCES submissions (id)
);

CREATE INDEX ix_samples_submission_id ON samples (submission_id);
