import "../shared/base.css";
